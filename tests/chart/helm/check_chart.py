#!/usr/bin/env python3
"""Real Helm (the pinned helm.sh/helm/v3 module, built by scripts/build-go-tool) against the chart.

  check_chart.py SOURCE_DIR

`helm lint --strict` with the defaults and each values example, `helm template` of each example
with what that example is for asserted on the rendered objects, and the values Helm must refuse
(schema and the chart's own checks) with the message a user would read.
"""
import base64
import glob
import os
import subprocess
import sys
import tempfile

import yaml

SOURCE = os.path.abspath(sys.argv[1])
CHART = os.path.join(SOURCE, "charts/db-autoscaler")
EXAMPLES = os.path.join(SOURCE, "tests/chart/values")
NAMESPACE = "cozy-db-autoscaler"
# The version the renders below assume; the stamped default (Kubernetes 1.37, see go-ldflags) is
# checked on its own.
KUBE_VERSION = "1.34.4"
failures = []


def build_helm():
    out = subprocess.run([os.path.join(SOURCE, "scripts/build-go-tool"), "tests/chart/helm",
                          "helm.sh/helm/v3/cmd/helm", "helm"], check=True, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    return out.stdout.strip()


HELM = build_helm()
# Helm keeps its config, cache and data under $HOME by default: a scratch home keeps the test
# from reading or writing the user's repositories and plugins.
HOME = tempfile.mkdtemp(prefix="dha-helm-")
ENV = dict(os.environ, HELM_CONFIG_HOME=f"{HOME}/config", HELM_CACHE_HOME=f"{HOME}/cache",
           HELM_DATA_HOME=f"{HOME}/data", KUBECONFIG=f"{HOME}/no-cluster")


def helm(*args):
    return subprocess.run([HELM, *args], capture_output=True, text=True, env=ENV)


def values_args(files):
    return [a for f in files for a in ("-f", f)]


def render(files, *extra):
    r = helm("template", "db-autoscaler", CHART, "--namespace", NAMESPACE, "--kube-version", KUBE_VERSION,
             *values_args(files), *extra)
    if r.returncode != 0:
        raise AssertionError(f"helm template {files} failed: {r.stderr}")
    return [d for d in yaml.safe_load_all(r.stdout) if d]


def check(what, cond, detail=""):
    if not cond:
        failures.append(f"{what}{': ' + detail if detail else ''}")


def one(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    if len(found) != 1:
        raise AssertionError(f"want one {kind} {name or ''}, got {len(found)}")
    return found[0]


def kinds(docs):
    return {d["kind"] for d in docs}


def container(docs):
    return one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def example(name):
    return os.path.join(EXAMPLES, name)


def inline(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=HOME, delete=False)
    f.write(text)
    f.close()
    return f.name


# --- helm lint, strict, for the defaults and every example --------------------------------
examples = sorted(glob.glob(os.path.join(EXAMPLES, "*.yaml")))
for files in [[]] + [[e] for e in examples]:
    r = helm("lint", "--strict", CHART, "--namespace", NAMESPACE, "--kube-version", KUBE_VERSION, *values_args(files))
    check(f"helm lint --strict {[os.path.basename(f) for f in files]}", r.returncode == 0, r.stdout + r.stderr)

# --- helm template: every example renders, and does what it is for -------------------------
for e in examples:
    try:
        render([e])
    except AssertionError as err:
        failures.append(str(err))


def every_webhook_trusts(docs, ca):
    for hook in [d for d in docs if d["kind"] == "ValidatingWebhookConfiguration"]:
        for w in hook["webhooks"]:
            check(f"webhook {w['name']} trusts the serving CA", w["clientConfig"].get("caBundle") == ca,
                  f"caBundle {w['clientConfig'].get('caBundle', '')[:40]!r}")


def check_defaults(docs):
    # helm template knows only the built-in APIs: no cert-manager, no monitoring operators.
    check("defaults: only built-in APIs", not [d for d in docs if "." in d["apiVersion"].split("/")[0]
                                               and not d["apiVersion"].split("/")[0].endswith(".k8s.io")],
          str(sorted(kinds(docs))))
    check("defaults: no ServiceMonitor, PodMonitor, VMServiceScrape or PrometheusRule",
          not {"ServiceMonitor", "PodMonitor", "VMServiceScrape", "PrometheusRule"} & kinds(docs))
    secret = one(docs, "Secret", "db-autoscaler-cert")
    every_webhook_trusts(docs, secret["data"]["ca.crt"])
    spec = one(docs, "Deployment")["spec"]["template"]["spec"]
    check("defaults: restricted pod security context", spec["securityContext"].get("runAsUser") == 65532)
    check("defaults: spread across nodes", "podAntiAffinity" in spec["affinity"])
    service = one(docs, "Service", "db-autoscaler")
    check(f"defaults: trafficDistribution on Kubernetes {KUBE_VERSION}",
          service["spec"].get("trafficDistribution") == "PreferClose")


def check_keda_knobs(docs):
    pod = one(docs, "Deployment")["spec"]["template"]
    spec, c = pod["spec"], container(docs)
    check("podLabels", pod["metadata"]["labels"].get("team") == "platform")
    check("affinity replaces the default", set(spec["affinity"]) == {"nodeAffinity"}, str(spec["affinity"]))
    check("topologySpreadConstraints", spec.get("topologySpreadConstraints", [{}])[0].get("topologyKey")
          == "topology.kubernetes.io/zone")
    check("podSecurityContext replaces the default", spec["securityContext"].get("runAsUser") == 10001)
    check("securityContext replaces the container's", "runAsUser" not in c["securityContext"])
    check("priorityClassName", spec.get("priorityClassName") == "system-cluster-critical")
    check("env is appended", {"name": "TZ", "value": "UTC"} in c["env"] and c["env"][0]["name"] == "POD_NAME")
    check("extraArgs become flags", "--leader-elect-lease-duration=30s" in c["args"]
          and "--zap-devel=false" in c["args"], str(c["args"]))
    check("extra volume", any(v["name"] == "vm-credentials" for v in spec["volumes"]))
    check("extra mount", any(m["mountPath"] == "/var/run/secrets/vmselect" for m in c["volumeMounts"]))
    sa = one(docs, "ServiceAccount")
    annotations = sa["metadata"].get("annotations", {})
    check("ServiceAccount annotations", annotations.get("iam.example.com/role") == "db-autoscaler")
    sm = one(docs, "ServiceMonitor")
    ep = sm["spec"]["endpoints"][0]
    check("ServiceMonitor verifies TLS against the release CA",
          ep["scheme"] == "https" and ep["tlsConfig"]["serverName"] == f"db-autoscaler.{NAMESPACE}.svc")
    check("no VMServiceScrape where the cluster does not serve it", "VMServiceScrape" not in kinds(docs))
    check("ServiceMonitor sends the Secret's token as authorization",
          ep.get("authorization") == {"type": "Bearer", "credentials": {"name": "prometheus-scrape-token", "key": "token"}}
          and "bearerTokenFile" not in ep, str(ep))
    check("tolerations after the control-plane ones",
          [t["key"] for t in spec["tolerations"]][-1] == "dedicated", str(spec["tolerations"]))
    check("probe knobs", (c["readinessProbe"]["periodSeconds"], c["readinessProbe"]["timeoutSeconds"],
                          c["livenessProbe"]["failureThreshold"], c["livenessProbe"]["initialDelaySeconds"]) == (5, 4, 4, 15),
          str((c["readinessProbe"], c["livenessProbe"])))
    check("revisionHistoryLimit", one(docs, "Deployment")["spec"].get("revisionHistoryLimit") == 3)
    notes = one(docs, "ConfigMap", "db-autoscaler-notes")
    check("extraObjects through tpl", notes["metadata"]["namespace"] == NAMESPACE and notes["data"] == {"owner": "platform"})


def check_monitoring_operators(docs):
    check("VMServiceScrape and PrometheusRule where the cluster serves them",
          {"VMServiceScrape", "PrometheusRule"} <= kinds(docs), str(sorted(kinds(docs))))
    check("ServiceMonitor only when asked", "ServiceMonitor" not in kinds(docs))


def check_without_cert_manager(docs):
    check("no cert-manager objects", not [d for d in docs if d["apiVersion"].startswith("cert-manager.io/")])
    secret = one(docs, "Secret", "db-autoscaler-cert")
    hook = one(docs, "ValidatingWebhookConfiguration")
    every_webhook_trusts(docs, secret["data"]["ca.crt"])
    check("no CA injection annotation", "cert-manager.io/inject-ca-from" not in hook["metadata"].get("annotations", {}))
    pem = base64.b64decode(secret["data"]["tls.crt"])
    check("generated certificate is PEM", pem.startswith(b"-----BEGIN CERTIFICATE-----"))
    check("a ServiceMonitor instead of the VMServiceScrape",
          "ServiceMonitor" in kinds(docs) and "VMServiceScrape" not in kinds(docs))
    sm = one(docs, "ServiceMonitor")
    check("ServiceMonitor labels for the Prometheus selector", sm["metadata"]["labels"].get("release") == "prometheus")


def check_existing_secret(docs):
    check("no cert-manager objects", not [d for d in docs if d["apiVersion"].startswith("cert-manager.io/")])
    check("no generated Secret", "Secret" not in kinds(docs))
    spec = one(docs, "Deployment")["spec"]["template"]["spec"]
    certs = [v for v in spec["volumes"] if v["name"] == "webhook-certs"][0]
    check("the pods mount the provided Secret", certs["secret"]["secretName"] == "platform-issued-db-autoscaler-tls")
    every_webhook_trusts(docs, yaml.safe_load(open(example("existing-secret.yaml")))["certificates"]["caBundle"])
    pm = one(docs, "PodMonitor")
    ep = pm["spec"]["podMetricsEndpoints"][0]
    check("PodMonitor sends the token Secret", ep["authorization"]["credentials"]["name"] == "prometheus-scrape-token")
    check("PodMonitor verifies TLS with the provided CA",
          ep["tlsConfig"]["ca"]["secret"]["name"] == "platform-issued-db-autoscaler-tls")


def check_cert_manager(docs):
    check("cert-manager issues the certificate", "Certificate" in kinds(docs))
    check("no generated Secret", "Secret" not in kinds(docs))
    hook = one(docs, "ValidatingWebhookConfiguration")
    check("cert-manager injects the CA into the configuration",
          "cert-manager.io/inject-ca-from" in hook["metadata"].get("annotations", {}))


monitoring_apis = ["--api-versions", "operator.victoriametrics.com/v1beta1/VMServiceScrape",
                   "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"]
for files, extra, checker in [
        ([], [], check_defaults), ([example("keda-knobs.yaml")], [], check_keda_knobs),
        ([example("without-cert-manager.yaml")], [], check_without_cert_manager),
        ([example("existing-secret.yaml")], [], check_existing_secret),
        ([inline("certificates: {certManager: {enabled: true}}\n")], [], check_cert_manager),
        ([], monitoring_apis, check_monitoring_operators)]:
    try:
        checker(render(files, *extra))
    except (AssertionError, KeyError, IndexError, TypeError) as err:
        failures.append(f"{checker.__name__}: {err!r}")

# --- what Helm must refuse, with a message that names the problem ---------------------------
refusals = [
    ("a typo at the top level", "podLabel: {a: b}\n", "podLabel"),
    ("a typo under certificates", "certificates: {autoGenerate: true}\n", "autoGenerate"),
    ("two certificate sources", "certificates: {certManager: {enabled: true}, existingSecret: mine}\n",
     "two sources"),
    ("no certificate source", "certificates: {autoGenerated: false}\n", "no serving certificate"),
    ("an existing Secret helm cannot read and no caBundle",
     "certificates: {existingSecret: mine}\n", "set certificates.caBundle"),
    ("a PodMonitor without a token for secure metrics", "metrics: {podMonitor: {enabled: true}}\n",
     "bearerTokenSecret"),
    # (Helm names the wrong path for a propertyNames failure; the value itself is named.)
    ("an extraArgs flag with a leading dash", "extraArgs: {--zap-devel: true}\n", "'--zap-devel' does not match"),
    ("a spread constraint without topologyKey",
     "topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]\n",
     "topologyKey"),
]
for what, values, want in refusals:
    r = helm("template", "db-autoscaler", CHART, "--namespace", NAMESPACE, "--kube-version", KUBE_VERSION,
             "-f", inline(values))
    check(f"refuses {what}", r.returncode != 0 and want in r.stderr, f"exit {r.returncode}, stderr: {r.stderr.strip()}")

version = helm("version", "--short").stdout.strip()
# Stamped as Helm's release build stamps it (go-ldflags): its own version, and the Kubernetes
# version of its client libraries as the default capabilities when no cluster is asked.
check("helm reports its release version", version.startswith("v3.22.0"), version)
r = helm("template", "db-autoscaler", CHART, "--namespace", NAMESPACE, "--show-only", "templates/service.yaml")
check("helm template assumes a current Kubernetes by default (trafficDistribution, 1.31+)",
      r.returncode == 0 and "trafficDistribution: PreferClose" in r.stdout, r.stderr.strip())
for f in failures:
    print("FAIL:", f)
print(f"helm {version}: {len(examples) + 1} lint runs, {len(examples)} examples rendered, {len(refusals)} refusals; "
      f"{len(failures)} failed")
sys.exit(1 if failures else 0)
