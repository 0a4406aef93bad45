"""Checks through the clients people use: the official Python client (typed and custom-object
APIs, watch=True) and kubectl 1.32's everyday commands."""

import json
import threading
import time

from check import check, normalize
from checks_objects import CLUSTERS, PG, cluster, create_pg, pg


def python_watch(t, ns, list_call, make_changes, seconds=3, after_first_event=False):
    """Runs kubernetes.watch.Watch().stream(list_call) while `make_changes` writes; event types seen.

    With `after_first_event`, the changes are made once the stream has delivered its first event
    (an object that was already there): a watch that opened late on a busy machine would otherwise
    start after the changes and show them as its initial state, not as the events under test.
    Otherwise they are made a second after the watch started, where the order cannot change what
    is seen (a watch of an empty namespace shows a new object as ADDED either way)."""
    import kubernetes
    seen = []
    streaming = threading.Event()

    def run():
        w = kubernetes.watch.Watch()
        try:
            for event in w.stream(list_call, timeout_seconds=seconds):
                obj = event["object"]
                name = obj["metadata"]["name"] if isinstance(obj, dict) else obj.metadata.name
                seen.append((event["type"], name))
                streaming.set()
        except Exception as e:  # noqa: BLE001 - what the client raised is the observation
            seen.append(("raised", type(e).__name__))
        finally:
            streaming.set()

    thread = threading.Thread(target=run)
    thread.start()
    if after_first_event:
        streaming.wait(30)
    else:
        time.sleep(1)
    make_changes()
    thread.join(seconds + 10)
    return seen


@check("python: CustomObjectsApi watch=True streams ADDED and MODIFIED events")
def python_watch_custom(t, ns):
    import kubernetes
    api = kubernetes.client.CustomObjectsApi(t.python_client())
    create_pg(t, ns, "a")

    def changes():
        t.http("PATCH", PG.format(ns=ns) + "/a", {"spec": {"replicas": 3}}, "application/merge-patch+json")

    return python_watch(t, ns, lambda **kw: api.list_namespaced_custom_object(
        "apps.cozystack.io", "v1alpha1", ns, "postgreses", **kw), changes, after_first_event=True)


@check("python: CoreV1Api watch of ConfigMaps streams typed events")
def python_watch_core(t, ns):
    import kubernetes
    api = kubernetes.client.CoreV1Api(t.python_client())

    def changes():
        t.http("POST", f"/api/v1/namespaces/{ns}/configmaps",
               {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})

    return python_watch(t, ns, lambda **kw: api.list_namespaced_config_map(ns, **kw), changes)


@check("python: typed list items (ConfigMaps, Leases) and their kind/apiVersion")
def python_typed_list(t, ns):
    import kubernetes
    client = t.python_client()
    t.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    t.http("POST", f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases",
           {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"}, "spec": {}})
    cms = kubernetes.client.CoreV1Api(client).list_namespaced_config_map(ns)
    leases = kubernetes.client.CoordinationV1Api(client).list_namespaced_lease(ns)
    return {"configmaps": [cms.kind, cms.api_version, cms.items[0].kind, cms.items[0].api_version],
            "leases": [leases.kind, leases.items[0].kind, leases.items[0].api_version]}


@check("python: typed read of one object carries kind and apiVersion")
def python_typed_read(t, ns):
    import kubernetes
    t.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    cm = kubernetes.client.CoreV1Api(t.python_client()).read_namespaced_config_map("c", ns)
    return [cm.kind, cm.api_version]


@check("python: a typed delete returns a V1Status")
def python_typed_delete(t, ns):
    import kubernetes
    t.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    status = kubernetes.client.CoreV1Api(t.python_client()).delete_namespaced_config_map("c", ns)
    return {"type": type(status).__name__, "status": getattr(status, "status", None),
            "details.name": getattr(getattr(status, "details", None), "name", None)}


@check("python: an ApiException carries the Status of a 409")
def python_conflict(t, ns):
    import kubernetes
    api = kubernetes.client.CustomObjectsApi(t.python_client())
    create_pg(t, ns, "a")
    try:
        api.create_namespaced_custom_object("apps.cozystack.io", "v1alpha1", ns, "postgreses", pg("a"))
        return "created"
    except kubernetes.client.ApiException as e:
        return {"status": e.status, "reason": json.loads(e.body).get("reason")}


@check("python: the custom-object /scale read and patch")
def python_scale(t, ns):
    import kubernetes
    cluster(ns, t)
    api = kubernetes.client.CustomObjectsApi(t.python_client())
    before = api.get_namespaced_custom_object_scale("postgresql.cnpg.io", "v1", ns, "clusters", "pg")
    after = api.patch_namespaced_custom_object_scale("postgresql.cnpg.io", "v1", ns, "clusters", "pg",
                                                     {"spec": {"replicas": 5}})
    return {"before": normalize(before)["spec"], "after": normalize(after)["spec"]}


# --- kubectl -----------------------------------------------------------------------------------

def manifest(ns, replicas):
    return json.dumps({**pg("db", replicas), "metadata": {"name": "db", "namespace": ns}})


@check("kubectl: apply creates, then reports unchanged, then configured")
def kubectl_apply(t, ns):
    outs = []
    for replicas in [2, 2, 3]:
        rc, out, err = t.kubectl("apply", "-f", "-", stdin=manifest(ns, replicas))
        outs.append((rc, out.strip() or err.strip()))
    return outs


@check("kubectl: server-side apply and its conflict message")
def kubectl_apply_server_side(t, ns):
    first = t.kubectl("apply", "--server-side", "--field-manager=alice", "-f", "-", stdin=manifest(ns, 2))
    second = t.kubectl("apply", "--server-side", "--field-manager=bob", "-f", "-", stdin=manifest(ns, 3))
    return {"first": first[0], "second rc": second[0], "conflict": "conflict" in (second[1] + second[2]).lower()}


@check("kubectl: get -o name, get by short name and category")
def kubectl_get(t, ns):
    create_pg(t, ns, "a")
    return {"name": t.kubectl("get", "postgreses", "-n", ns, "-o", "name")[1].split(),
            "short": t.kubectl("get", "pg", "-n", ns, "-o", "name")[1].split(),
            "category": t.kubectl("get", "cozystack", "-n", ns, "-o", "name")[1].split()}


@check("kubectl: get of a missing object prints kube's NotFound line")
def kubectl_not_found(t, ns):
    rc, out, err = t.kubectl("get", "postgreses", "nope", "-n", ns)
    return {"rc": rc, "err": err.strip()}


@check("kubectl: scale writes /scale")
def kubectl_scale(t, ns):
    cluster(ns, t)
    rc, out, err = t.kubectl("scale", "clusters.postgresql.cnpg.io/pg", "--replicas=4", "-n", ns)
    return {"rc": rc, "out": out.strip() or err.strip(),
            "instances": t.http("GET", CLUSTERS.format(ns=ns) + "/pg").json["spec"]["instances"]}


@check("kubectl: delete waits for the object to go")
def kubectl_delete(t, ns):
    create_pg(t, ns, "a")
    rc, out, err = t.kubectl("delete", "postgreses", "a", "-n", ns, "--timeout=20s")
    return {"rc": rc, "out": out.strip() or err.strip()}


@check("kubectl: patch --type=merge, and --type=strategic on a custom object")
def kubectl_patch(t, ns):
    create_pg(t, ns, "a")
    merge = t.kubectl("patch", "postgreses", "a", "-n", ns, "--type=merge", "-p", '{"spec":{"replicas":3}}')
    strategic = t.kubectl("patch", "postgreses", "a", "-n", ns, "--type=strategic", "-p", '{"spec":{"replicas":4}}')
    return {"merge": (merge[0], merge[1].strip()), "strategic": (strategic[0], strategic[2].strip())}


@check("kubectl: create --dry-run=server stores nothing")
def kubectl_dry_run(t, ns):
    rc, out, err = t.kubectl("create", "configmap", "c", "--from-literal=a=1", "-n", ns, "--dry-run=server", "-o", "name")
    return {"rc": rc, "out": out.strip(), "stored": t.http("GET", f"/api/v1/namespaces/{ns}/configmaps/c").status}


@check("kubectl: get events shows the core Event columns")
def kubectl_events(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/events",
           {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "reason": "Scaled", "type": "Normal",
            "message": "2 to 3", "involvedObject": {"kind": "Postgres", "namespace": ns, "name": "db"}})
    rc, out, err = t.kubectl("get", "events", "-n", ns)
    lines = out.splitlines()
    return {"rc": rc, "header": lines[0].split() if lines else err.strip(), "rows": len(lines) - 1}
