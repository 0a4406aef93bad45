"""Checks of lists and watches: selectors, pagination, field selectors, watch events, 410,
bookmarks, selector transitions, initial events, Table output."""

import re

from check import check, event_types, names, status_of
from checks_objects import PG, create_pg


def watch(t, ns, query, timeout=2):
    return t.http("GET", PG.format(ns=ns) + "?watch=true&timeoutSeconds=" + str(timeout) + "&" + query,
                  timeout=timeout + 10)


@check("list: set-based label selectors")
def list_labels(t, ns):
    create_pg(t, ns, "a", labels={"env": "prod", "team": "x"})
    create_pg(t, ns, "b", labels={"env": "dev"})
    create_pg(t, ns, "c")
    out = {}
    for sel in ["env%3Dprod", "env!%3Dprod", "env%20in%20(dev,prod)", "env%20notin%20(dev)", "team", "!team"]:
        out[sel] = names(t.http("GET", PG.format(ns=ns) + "?labelSelector=" + sel).json)
    return out


@check("list: a malformed label selector is 400")
def list_bad_labels(t, ns):
    return status_of(t.http("GET", PG.format(ns=ns) + "?labelSelector=a%20in%20b"), with_message=False)


@check("list: limit and continue page through in name order")
def list_pages(t, ns):
    for n in "edcba":
        create_pg(t, ns, n)
    pages, remaining, token = [], [], ""
    while len(pages) < 5:
        body = t.http("GET", PG.format(ns=ns) + "?limit=2" + ("&continue=" + token if token else "")).json
        pages.append(names(body))
        remaining.append(body["metadata"].get("remainingItemCount"))
        token = body["metadata"].get("continue", "")
        if not token:
            break
    return {"pages": pages, "remainingItemCount": remaining}


@check("list: the list's kind and apiVersion, and each custom item's")
def list_kinds(t, ns):
    create_pg(t, ns, "a")
    body = t.http("GET", PG.format(ns=ns)).json
    item = body["items"][0]
    return {"kind": body["kind"], "apiVersion": body["apiVersion"], "item kind": item.get("kind"),
            "item apiVersion": item.get("apiVersion")}


@check("list: items of a built-in kind (ConfigMap) carry kind and apiVersion or not")
def list_core_kinds(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    body = t.http("GET", f"/api/v1/namespaces/{ns}/configmaps").json
    item = body["items"][0]
    return {"kind": body["kind"], "item kind": item.get("kind"), "item apiVersion": item.get("apiVersion")}


@check("fieldSelector: metadata.name and metadata.namespace on a custom kind")
def field_metadata(t, ns):
    create_pg(t, ns, "a")
    create_pg(t, ns, "b")
    return {"name": names(t.http("GET", PG.format(ns=ns) + "?fieldSelector=metadata.name%3Db").json),
            "not name": names(t.http("GET", PG.format(ns=ns) + "?fieldSelector=metadata.name!%3Db").json),
            "namespace": names(t.http("GET", PG.format(ns=ns) + f"?fieldSelector=metadata.namespace%3D{ns}").json)}


@check("fieldSelector: a spec field on a custom kind is 400 field label not supported")
def field_custom_unsupported(t, ns):
    return status_of(t.http("GET", PG.format(ns=ns) + "?fieldSelector=spec.replicas%3D1"))


@check("fieldSelector: a data field on ConfigMaps is 400 not a known field selector")
def field_configmap_unsupported(t, ns):
    return status_of(t.http("GET", f"/api/v1/namespaces/{ns}/configmaps?fieldSelector=data.a%3Db"))


@check("fieldSelector: core Events select on involvedObject, reason and type")
def field_events(t, ns):
    for name, involved in [("e1", "db"), ("e2", "other")]:
        t.http("POST", f"/api/v1/namespaces/{ns}/events",
               {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name}, "reason": "Scaled", "type": "Normal",
                "message": "m", "involvedObject": {"kind": "Postgres", "namespace": ns, "name": involved}})
    q = "involvedObject.kind%3DPostgres,involvedObject.name%3Ddb,reason%3DScaled,type%3DNormal"
    ok = t.http("GET", f"/api/v1/namespaces/{ns}/events?fieldSelector={q}")
    bad = t.http("GET", f"/api/v1/namespaces/{ns}/events?fieldSelector=message%3Dm")
    return {"selected": names(ok.json), "message": status_of(bad)}


@check("fieldSelector: events.k8s.io Events select on regarding and reportingController")
def field_events_v1(t, ns):
    r = t.http("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events?fieldSelector="
                      "regarding.name%3Ddb,reportingController%3Dx")
    bad = t.http("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events?fieldSelector=note%3Dx")
    return {"code": r.status, "note": status_of(bad)}


@check("fieldSelector: Namespaces select on status.phase, not on metadata.namespace")
def field_namespaces(t, ns):
    ok = t.http("GET", "/api/v1/namespaces?fieldSelector=status.phase%3DActive,metadata.name%3D" + ns)
    bad = t.http("GET", "/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx")
    return {"selected": names(ok.json), "metadata.namespace": status_of(bad)}


# --- watch -------------------------------------------------------------------------------------

@check("watch: from a resourceVersion, MODIFIED then DELETED in order")
def watch_from_rv(t, ns):
    body = create_pg(t, ns, "a")
    t.http("PATCH", PG.format(ns=ns) + "/a", {"spec": {"replicas": 3}}, "application/merge-patch+json")
    t.http("DELETE", PG.format(ns=ns) + "/a")
    r = watch(t, ns, "resourceVersion=" + body["metadata"]["resourceVersion"], timeout=1)
    return {"types": event_types(r), "replicas": [e["object"]["spec"]["replicas"] for e in r.lines()]}


@check("watch: without a resourceVersion, the current objects come first as ADDED")
def watch_initial(t, ns):
    create_pg(t, ns, "a")
    create_pg(t, ns, "b")
    r = watch(t, ns, "", timeout=1)
    return [(e["type"], e["object"]["metadata"]["name"]) for e in r.lines()]


@check("watch: an object entering and leaving a label selector is ADDED then DELETED")
def watch_transitions(t, ns):
    body = create_pg(t, ns, "a", labels={"tier": "web"})
    for tier in ["db", "other"]:
        t.http("PATCH", PG.format(ns=ns) + "/a", {"metadata": {"labels": {"tier": tier}}}, "application/merge-patch+json")
    r = watch(t, ns, "labelSelector=tier%3Ddb&resourceVersion=" + body["metadata"]["resourceVersion"], timeout=1)
    return [(e["type"], e["object"]["metadata"]["labels"].get("tier")) for e in r.lines()]


@check("watch: a resourceVersion long gone is 410 Expired (as an ERROR event or the answer)")
def watch_expired(t, ns):
    r = watch(t, ns, "resourceVersion=1", timeout=1)
    events = r.lines()
    if r.status != 200:
        return {"answer": status_of(r, with_message=False)}
    return {"answer": r.status, "types": [e.get("type") for e in events],
            "code": [e["object"].get("code") for e in events if e.get("type") == "ERROR"],
            "reason": [e["object"].get("reason") for e in events if e.get("type") == "ERROR"]}


@check("watch: a short quiet watch from a resourceVersion gets no bookmark (kube sends one a minute)")
def watch_bookmark(t, ns):
    body = create_pg(t, ns, "a")
    r = watch(t, ns, "allowWatchBookmarks=true&resourceVersion=" + body["metadata"]["resourceVersion"], timeout=3)
    return event_types(r)


@check("watch: from the current state with bookmarks allowed, an initial-events-end BOOKMARK follows the ADDED")
def watch_initial_bookmark(t, ns):
    create_pg(t, ns, "a")
    out = {}
    for rv in ["", "&resourceVersion=0"]:
        r = watch(t, ns, "allowWatchBookmarks=true" + rv, timeout=1)
        out[rv or "unset"] = [(e["type"], (e["object"].get("metadata", {}).get("annotations") or {}))
                              for e in r.lines()]
    return {k: [(typ, sorted(a.items())) for typ, a in v] for k, v in out.items()}


@check("watch: sendInitialEvents ends the initial ADDED events with an annotated BOOKMARK")
def watch_initial_events(t, ns):
    create_pg(t, ns, "a")
    r = watch(t, ns, "sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan", timeout=2)
    out = []
    for e in r.lines():
        annotations = e["object"].get("metadata", {}).get("annotations", {})
        out.append((e["type"], annotations.get("k8s.io/initial-events-end")))
        if annotations.get("k8s.io/initial-events-end"):
            break
    return out


@check("watch: events of a built-in kind (ConfigMap) carry kind and apiVersion")
def watch_core_kinds(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    r = t.http("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=true&timeoutSeconds=1", timeout=11)
    return [(e["type"], e["object"].get("kind"), e["object"].get("apiVersion")) for e in r.lines()]


@check("watch: an unsupported field selector is refused")
def watch_bad_field(t, ns):
    return status_of(watch(t, ns, "fieldSelector=spec.replicas%3D1", timeout=1))


@check("watch: the watch=True spelling (the Python client's) is a watch")
def watch_capital_true(t, ns):
    create_pg(t, ns, "a")
    r = t.http("GET", PG.format(ns=ns) + "?watch=True&timeoutSeconds=1", timeout=11)
    events = r.lines()
    return event_types(r) if events and "type" in events[0] else {"kind": events[0].get("kind") if events else None}


# --- Table -------------------------------------------------------------------------------------

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


@check("table: a custom kind's Table has its printer columns")
def table_custom(t, ns):
    create_pg(t, ns, "a")
    body = t.http("GET", PG.format(ns=ns), accept=TABLE).json
    return {"kind": body["kind"], "columns": [(c["name"], c["type"]) for c in body["columnDefinitions"]],
            "rows": len(body["rows"]), "cells": len(body["rows"][0]["cells"])}


@check("table: a ConfigMap's Table")
def table_configmap(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/configmaps",
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}})
    body = t.http("GET", f"/api/v1/namespaces/{ns}/configmaps", accept=TABLE).json
    cells = [re.sub(r"^\d+s$", "<age>", c) if isinstance(c, str) else c for c in body["rows"][0]["cells"]]
    return {"columns": [(c["name"], c["type"]) for c in body["columnDefinitions"]], "cells": cells}


@check("table: Secret and ServiceAccount Tables")
def table_secret_sa(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/secrets",
           {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "type": "Opaque", "data": {"a": "eA=="}})
    t.http("POST", f"/api/v1/namespaces/{ns}/serviceaccounts",
           {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}, "secrets": [{"name": "s"}]})
    out = {}
    for plural, name in [("secrets", "s"), ("serviceaccounts", "sa")]:
        body = t.http("GET", f"/api/v1/namespaces/{ns}/{plural}/{name}", accept=TABLE).json
        cells = [re.sub(r"^\d+s$", "<age>", c) if isinstance(c, str) else c for c in body["rows"][0]["cells"]]
        out[plural] = {"columns": [(c["name"], c["type"]) for c in body["columnDefinitions"]], "cells": cells}
    return out


@check("table: kubectl get prints the printer columns")
def table_kubectl(t, ns):
    create_pg(t, ns, "a")
    rc, out, err = t.kubectl("get", "postgreses", "-n", ns)
    return {"rc": rc, "header": out.splitlines()[0].split() if out else err.strip()}
