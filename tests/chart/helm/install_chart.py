#!/usr/bin/env python3
"""helm install of the chart into a real kube-apiserver, then the operator as the chart runs it.

  install_chart.py SOURCE_DIR DB_AUTOSCALER PLUGIN_DIR...

The control plane is $DHA_KUBE_CONTROL_PLANE, or built from sdk/testing/controlplane with
scripts/build-go-tool; a tree without it skips (exit 77) saying so. Then:
- real Helm installs the chart with its defaults (chart-made certificates: the server has no
  cert-manager, and no monitoring CRDs) and every object must be accepted by the real server's
  validation;
- the operator starts with the rendered Deployment's arguments, as the chart's ServiceAccount
  (a token the server maps to that ServiceAccount), with the certificate the chart generated:
  it must become leader and ready, serve its secure metrics, and the real RBAC authorizer must
  have refused none of its requests (the audit log has no 403 for it).
"""
import base64
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.request

import yaml

from real_cluster import children, fail, free_port, go_tool, init, start_control_plane, stop_children, wait_for

SOURCE, HOST_BIN, PLUGIN_DIRS = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
CHART = os.path.join(SOURCE, "charts/db-autoscaler")
NAMESPACE, RELEASE, SERVICE_ACCOUNT = "cozy-db-autoscaler", "db-autoscaler", "db-autoscaler"
WORK = init(SOURCE, "dha-helm-install-")


info, cp_log_path = start_control_plane(NAMESPACE, SERVICE_ACCOUNT)
helm = go_tool("tests/chart/helm", "helm.sh/helm/v3/cmd/helm", "helm")
admin = info["identities"]["admin"]["kubeconfig"]
operator_kubeconfig = info["identities"]["operator"]["kubeconfig"]
print(f"control plane ready at {info['url']} in {info.get('startMillis', '?')} ms")

# --- helm install: every object through the real server's validation ------------------------
# The chart as it is, kubeVersion included (the control plane reports the version it pins), on
# a server without cert-manager or monitoring CRDs: the defaults need neither.
values = ["--set", "plugins.enabled={postgres,metrics-vm}"]
env = dict(os.environ, HELM_CONFIG_HOME=f"{WORK}/helm/config", HELM_CACHE_HOME=f"{WORK}/helm/cache",
           HELM_DATA_HOME=f"{WORK}/helm/data")
started = time.monotonic()
r = subprocess.run([helm, "install", RELEASE, CHART, "--kubeconfig", admin, "--namespace", NAMESPACE,
                    "--create-namespace", *values], capture_output=True, text=True, env=env)
if r.returncode != 0:
    fail("helm install refused:\n" + r.stdout + r.stderr)
print(f"helm install: {time.monotonic() - started:.1f} s")
manifest = subprocess.run([helm, "get", "manifest", RELEASE, "--kubeconfig", admin, "--namespace", NAMESPACE],
                          capture_output=True, text=True, env=env, check=True).stdout
docs = [d for d in yaml.safe_load_all(manifest) if d]
for d in docs:
    ns = ["--namespace", d["metadata"].get("namespace", NAMESPACE)]
    got = subprocess.run(["kubectl", "--kubeconfig", admin, "get", d["kind"], d["metadata"]["name"], *ns, "-o", "name"],
                         capture_output=True, text=True)
    if got.returncode != 0:
        fail(f"{d['kind']} {d['metadata']['name']} is not on the server: {got.stderr}")
print(f"{len(docs)} objects installed: {sorted({d['kind'] for d in docs})}")

# --- the operator as the chart runs it -------------------------------------------------------
deployment = next(d for d in docs if d["kind"] == "Deployment")
container = deployment["spec"]["template"]["spec"]["containers"][0]
secret = json.loads(subprocess.run(["kubectl", "--kubeconfig", admin, "get", "secret", "db-autoscaler-cert",
                                    "--namespace", NAMESPACE, "-o", "json"], capture_output=True, text=True,
                                   check=True).stdout)
cert_dir = os.path.join(WORK, "serving-certs")
os.makedirs(cert_dir)
for key in ("tls.crt", "tls.key", "ca.crt"):
    with open(os.path.join(cert_dir, key), "wb") as f:
        f.write(base64.b64decode(secret["data"][key]))
metrics_port, probe_port = free_port(), free_port()
# The pod's arguments, but for what only a pod has: its ports on loopback, the plugin
# directories of this build, the mounted certificate. The webhook stays off: it listens on the
# Pod's address, and no API server here calls it.
args = []
for a in container["args"][1:]:
    flag = a.split("=", 1)[0]
    if flag in ("--plugin-dir", "--webhook-port", "--webhook-host"):
        continue
    args.append({"--metrics-bind-address": f"--metrics-bind-address=127.0.0.1:{metrics_port}",
                 "--health-probe-bind-address": f"--health-probe-bind-address=127.0.0.1:{probe_port}",
                 "--cert-dir": f"--cert-dir={cert_dir}"}.get(flag, a))
args += [f"--plugin-dir={d}" for d in PLUGIN_DIRS] + ["--enable-webhook=false", "--kubeconfig", operator_kubeconfig]
op_log = open(os.path.join(WORK, "operator.log"), "w")
op_env = dict(os.environ, POD_NAME="db-autoscaler-0", POD_NAMESPACE=NAMESPACE)
children.append(subprocess.Popen([HOST_BIN, "run", *args], stdout=op_log, stderr=subprocess.STDOUT, env=op_env))
operator = children[-1]


def ready():
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{probe_port}/readyz", timeout=2).status == 200
    except OSError:
        return operator.poll() is not None


def operator_log():
    return open(op_log.name).read()


wait_for("the operator is ready", ready, 60)
wait_for("the operator leads", lambda: "became leader" in operator_log() or operator.poll() is not None, 60)
if operator.poll() is not None:
    fail(f"the operator exited with {operator.returncode}:\n{operator_log()[-3000:]}")

# A database and its DHA: the operator reads, watches, finalizes and writes status through the
# real authorizer (the engine CRDs come from the SDK's fixtures; no metrics: it freezes).
def kubectl(*a):
    r = subprocess.run(["kubectl", "--kubeconfig", admin, *a], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"kubectl {' '.join(a)}: {r.stderr}")
    return r.stdout


kubectl("apply", "-f", os.path.join(SOURCE, "sdk/testing/crds"))
kubectl("wait", "--for=condition=Established", "crd/postgreses.apps.cozystack.io", "--timeout=60s")
kubectl("apply", "-f", os.path.join(SOURCE, "examples/demo/postgres.yaml"))
kubectl("apply", "-f", os.path.join(SOURCE, "examples/demo/dha.yaml"))


def reconciled():
    # Only its status: a DHA gets the operator's finalizer with its first write to the target,
    # and this one has no load to act on.
    dha = json.loads(kubectl("get", "-f", os.path.join(SOURCE, "examples/demo/dha.yaml"), "-o", "json"))
    return bool(dha.get("status", {}).get("conditions"))


wait_for("the operator reconciles the DHA and writes its status", reconciled, 60)

# Secure metrics with the chart's certificate, authorized through the real TokenReview and
# SubjectAccessReview (the auth-delegator binding).
tls = ssl.create_default_context(cafile=os.path.join(cert_dir, "ca.crt"))
tls.check_hostname = False  # issued for the Service's name, reached here on 127.0.0.1
admin_token = info["identities"]["admin"]["token"]
req = urllib.request.Request(f"https://127.0.0.1:{metrics_port}/metrics",
                             headers={"Authorization": f"Bearer {admin_token}"})
body = urllib.request.urlopen(req, context=tls, timeout=5).read().decode()
if "db_autoscaler_leader 1" not in body:
    fail("the metrics do not say this replica leads:\n" + body[:2000])

# The real authorizer refused nothing the operator asked for: the chart's RBAC is enough.
time.sleep(2)
username = f"system:serviceaccount:{NAMESPACE}:{SERVICE_ACCOUNT}"
denied, seen = [], set()
with open(info["auditLog"]) as audit:
    for line in audit:
        e = json.loads(line)
        if e.get("user", {}).get("username") != username:
            continue
        seen.add(f"{e.get('verb')} {e.get('objectRef', {}).get('resource', '')}")
        if e.get("responseStatus", {}).get("code") == 403:
            denied.append(f"{e.get('verb')} {e.get('requestURI')}")
print(f"the operator's requests in the audit log: {sorted(seen)}")
for needed in ("patch databasehorizontalautoscalers", "create leases", "create tokenreviews"):
    if needed not in seen:
        fail(f"the audit log does not show the operator's '{needed}': the check would prove nothing")
if denied:
    fail("the operator's requests the chart's RBAC does not allow:\n  " + "\n  ".join(sorted(set(denied))))
if "forbidden" in operator_log().lower():
    fail("the operator logged a refusal:\n" + operator_log()[-3000:])
stop_children()
print(f"helm install accepted by kube-apiserver; the operator ran with the chart's ServiceAccount and RBAC: "
      f"1 passed, 0 failed")
