#!/usr/bin/env python3
"""A new user's `helm install` on a plain cluster, then kube-apiserver's own call of the webhook.

  install_plain.py SOURCE_DIR DB_AUTOSCALER PLUGIN_DIR...

Real Helm installs charts/db-autoscaler as it is (kubeVersion included) into a real
kube-apiserver without cert-manager or any monitoring operator, with one value set: the metrics
URL. The operator runs on loopback with the rendered Deployment's arguments and plugin
configuration, as the chart's ServiceAccount, serving the certificate the chart generated. The chart's webhook Service is the
one object changed: a cluster has kube-proxy to reach the pods, this one has not, so the Service
becomes an ExternalName of the loopback address the operator listens on. kube-apiserver then
calls the webhook with the chart's own clientConfig and caBundle, verifying the certificate for
<service>.<namespace>.svc, and a second DHA on a database another DHA scales must be refused.

The control plane is $DHA_KUBE_CONTROL_PLANE, or built from sdk/testing/controlplane; a tree
without it skips (exit 77).
"""
import base64
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request

import yaml

from real_cluster import children, fail, free_port, go_tool, init, start_control_plane, stop_children, wait_for

SOURCE, HOST_BIN, PLUGIN_DIRS = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
CHART = os.path.join(SOURCE, "charts/db-autoscaler")
NAMESPACE, RELEASE, SERVICE_ACCOUNT = "cozy-db-autoscaler", "db-autoscaler", "db-autoscaler"
WORK = init(SOURCE, "dha-helm-plain-", show_work_on_failure=True)


def free_loopback_address(port):
    """A 127.x.y.z address (not 127.0.0.1) on which nothing listens on port."""
    for _ in range(50):
        address = f"127.{random.randint(1, 254)}.{random.randint(0, 255)}.{random.randint(1, 254)}"
        with socket.socket() as s:
            try:
                s.bind((address, port))
                return address
            except OSError:
                continue
    fail(f"no free loopback address for port {port}")


info, cp_log_path = start_control_plane(NAMESPACE, SERVICE_ACCOUNT)
helm = go_tool("tests/chart/helm", "helm.sh/helm/v3/cmd/helm", "helm")
kubectl_bin = go_tool("sdk/testing/kubectl", ".", "kubectl")
admin = info["identities"]["admin"]["kubeconfig"]


def kubectl(*a, check=True):
    r = subprocess.run([kubectl_bin, "--kubeconfig", admin, *a], capture_output=True, text=True)
    if check and r.returncode != 0:
        fail(f"kubectl {' '.join(a)}: {r.stderr}")
    return r


# --- helm install with the metrics URL and nothing else ------------------------------------
env = dict(os.environ, HELM_CONFIG_HOME=f"{WORK}/helm/config", HELM_CACHE_HOME=f"{WORK}/helm/cache",
           HELM_DATA_HOME=f"{WORK}/helm/data")
r = subprocess.run([helm, "install", RELEASE, CHART, "--kubeconfig", admin, "--namespace", NAMESPACE,
                    "--create-namespace", "--set", "plugins.config.metrics-vm.url=http://127.0.0.1:9/select/0/prometheus"],
                   capture_output=True, text=True, env=env)
if r.returncode != 0:
    fail("helm install with only the metrics URL refused on a plain cluster:\n" + r.stdout + r.stderr)
manifest = subprocess.run([helm, "get", "manifest", RELEASE, "--kubeconfig", admin, "--namespace", NAMESPACE],
                          capture_output=True, text=True, env=env, check=True).stdout
docs = [d for d in yaml.safe_load_all(manifest) if d]
print(f"helm install: {len(docs)} objects: {sorted({d['kind'] for d in docs})}")

# --- the operator as the chart runs it, its webhook on a loopback address ------------------
deployment = next(d for d in docs if d["kind"] == "Deployment")
container = deployment["spec"]["template"]["spec"]["containers"][0]
secret = json.loads(kubectl("get", "secret", "db-autoscaler-cert", "--namespace", NAMESPACE, "-o", "json").stdout)
cert_dir = os.path.join(WORK, "serving-certs")
os.makedirs(cert_dir)
for key in ("tls.crt", "tls.key", "ca.crt"):
    with open(os.path.join(cert_dir, key), "wb") as f:
        f.write(base64.b64decode(secret["data"][key]))
service_port = 443  # what the chart's webhook clientConfig names; an ExternalName keeps it
webhook_address = free_loopback_address(service_port)
metrics_port, probe_port = free_port(), free_port()
# The plugin configuration the pod mounts from the chart's ConfigMap, as a file here.
plugin_config = os.path.join(WORK, "plugin-config.json")
config_map = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-plugin-config"))
with open(plugin_config, "w") as f:
    f.write(next(iter(config_map["data"].values())))
args = []
for a in container["args"][1:]:
    flag = a.split("=", 1)[0]
    if flag in ("--plugin-dir", "--webhook-port", "--webhook-host"):
        continue
    args.append({"--metrics-bind-address": f"--metrics-bind-address=127.0.0.1:{metrics_port}",
                 "--health-probe-bind-address": f"--health-probe-bind-address=127.0.0.1:{probe_port}",
                 "--cert-dir": f"--cert-dir={cert_dir}",
                 "--plugin-config": f"--plugin-config={plugin_config}"}.get(flag, a))
args += [f"--plugin-dir={d}" for d in PLUGIN_DIRS]
args += [f"--webhook-host={webhook_address}", f"--webhook-port={service_port}",
         "--kubeconfig", info["identities"]["operator"]["kubeconfig"]]
op_log = open(os.path.join(WORK, "operator.log"), "w")
children.append(subprocess.Popen([HOST_BIN, "run", *args], stdout=op_log, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, POD_NAME="db-autoscaler-0", POD_NAMESPACE=NAMESPACE)))
operator = children[-1]


def operator_log():
    return open(op_log.name).read()


def ready():
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{probe_port}/readyz", timeout=2).status == 200
    except OSError:
        return operator.poll() is not None


wait_for("the operator is ready", ready, 60)
if operator.poll() is not None:
    fail(f"the operator exited with {operator.returncode}:\n{operator_log()[-3000:]}")

# The chart's Service, re-pointed at the operator (no kube-proxy here); the webhook
# configuration is the chart's, untouched.
service = kubectl("get", "service", RELEASE, "--namespace", NAMESPACE, "-o", "json").stdout
kubectl("delete", "service", RELEASE, "--namespace", NAMESPACE)
external = {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": RELEASE, "namespace": NAMESPACE, "labels": json.loads(service)["metadata"]["labels"]},
            "spec": {"type": "ExternalName", "externalName": webhook_address,
                     "ports": [{"name": "webhook", "port": service_port}]}}
external_file = os.path.join(WORK, "service.json")
json.dump(external, open(external_file, "w"))
kubectl("apply", "-f", external_file)

# --- a DHA claims a database; a second one on it must be refused by kube-apiserver's call ---
kubectl("apply", "-f", os.path.join(SOURCE, "sdk/testing/crds"))
kubectl("wait", "--for=condition=Established", "crd/postgreses.apps.cozystack.io", "--timeout=60s")
kubectl("apply", "-f", os.path.join(SOURCE, "examples/demo/postgres.yaml"))
kubectl("apply", "-f", os.path.join(SOURCE, "examples/demo/dha.yaml"))
second = yaml.safe_load(open(os.path.join(SOURCE, "examples/demo/dha.yaml")))
second["metadata"]["name"] = "db-second"
second_file = os.path.join(WORK, "second.json")
json.dump(second, open(second_file, "w"))

denial = 'admission webhook "target.autoscaling.cozystack.io" denied the request'
attempts = []


def second_refused():
    # Server-side dry runs (the webhook has no side effects) until the webhook answers: the
    # operator's cache must have seen the first DHA and kube-apiserver its configuration.
    r = kubectl("create", "--dry-run=server", "-f", second_file, check=False)
    attempts.append(r.returncode)
    return r.returncode != 0 and denial in r.stderr


deadline = time.monotonic() + 60
while time.monotonic() < deadline and not second_refused():
    time.sleep(0.5)
if not attempts or attempts[-1] == 0:
    calls = [l for l in open(cp_log_path) if "target.autoscaling.cozystack.io" in l][-5:]
    fail(f"a second DHA on demo/db was admitted {len(attempts)} times in 60 s; kube-apiserver said:\n" + "".join(calls))
r = kubectl("create", "-f", second_file, check=False)
if r.returncode == 0 or denial not in r.stderr:
    fail(f"the second DHA was not refused: exit {r.returncode}, {r.stdout}{r.stderr}")
print("refused:", r.stderr.strip())
if kubectl("get", "-f", second_file, check=False).returncode == 0:
    fail("the refused DHA exists")
stop_children()
print(f"helm install on a plain cluster with only the metrics URL; kube-apiserver called the chart's webhook "
      f"with its caBundle and refused the second DHA after {len(attempts)} dry runs: 1 passed, 0 failed")
