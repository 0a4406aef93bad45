"""Checks of the built-in kinds the operator writes: Events of both groups, Leases, Namespaces."""

from check import check, status_of
from checks_objects import PG, pg

MICRO = "2026-01-02T03:04:05.123456Z"


def core_event(ns, name, involved_ns, **fields):
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": ns},
            "involvedObject": {"kind": "Postgres", "namespace": involved_ns, "name": "db"}, **fields}


def new_event(ns, name, **fields):
    body = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name, "namespace": ns},
            "regarding": {"kind": "Postgres", "namespace": ns, "name": "db"}}
    body.update(fields)
    return body


COMPLETE = {"eventTime": MICRO, "type": "Normal", "reason": "Scaled", "action": "Scale",
            "reportingController": "db-autoscaler", "reportingInstance": "db-autoscaler-0", "note": "2 to 3"}


def post_event(t, ns, body, group="core"):
    path = f"/api/v1/namespaces/{ns}/events" if group == "core" else f"/apis/events.k8s.io/v1/namespaces/{ns}/events"
    return status_of(t.http("POST", path, body))


@check("events core/v1: an Event for an object in its namespace is stored")
def event_core_ok(t, ns):
    return post_event(t, ns, core_event(ns, "e", ns, reason="Scaled", type="Normal", message="m",
                                        firstTimestamp="2026-01-02T03:04:05Z", count=1))


@check("events core/v1: an Event naming another namespace is 422")
def event_core_wrong_ns(t, ns):
    return post_event(t, ns, core_event(ns, "e", "elsewhere", reason="Scaled"))


@check("events core/v1: the type is not checked")
def event_core_any_type(t, ns):
    return post_event(t, ns, core_event(ns, "e", ns, reason="Scaled", type="Odd"))


@check("events core/v1: with eventTime set the reporting fields are required")
def event_core_event_time(t, ns):
    return post_event(t, ns, core_event(ns, "e", ns, eventTime=MICRO))


@check("events core/v1: a malformed timestamp is 400")
def event_core_bad_time(t, ns):
    return status_of(t.http("POST", f"/api/v1/namespaces/{ns}/events",
                            core_event(ns, "e", ns, lastTimestamp="yesterday")), with_message=False)


@check("events events.k8s.io/v1: a complete Event is stored, and readable as core/v1")
def event_v1_ok(t, ns):
    created = post_event(t, ns, new_event(ns, "e", **COMPLETE), group="v1")
    core = t.http("GET", f"/api/v1/namespaces/{ns}/events/e")
    return {"create": created, "as core/v1": core.status,
            "core reason": (core.json or {}).get("reason"), "core source": (core.json or {}).get("reportingComponent")}


@check("events events.k8s.io/v1: eventTime is required")
def event_v1_no_time(t, ns):
    fields = dict(COMPLETE)
    del fields["eventTime"]
    return post_event(t, ns, new_event(ns, "e", **fields), group="v1")


@check("events events.k8s.io/v1: reportingController and action are required")
def event_v1_no_reporter(t, ns):
    fields = {k: v for k, v in COMPLETE.items() if k not in ("reportingController", "action")}
    return post_event(t, ns, new_event(ns, "e", **fields), group="v1")


@check("events events.k8s.io/v1: type must be Normal or Warning")
def event_v1_bad_type(t, ns):
    return post_event(t, ns, new_event(ns, "e", **{**COMPLETE, "type": "Info"}), group="v1")


@check("events events.k8s.io/v1: eventTime needs microseconds")
def event_v1_micro(t, ns):
    return status_of(t.http("POST", f"/apis/events.k8s.io/v1/namespaces/{ns}/events",
                            new_event(ns, "e", **{**COMPLETE, "eventTime": "2026-01-02T03:04:05Z"})),
                     with_message=False)


@check("events events.k8s.io/v1: deprecated fields must stay unset")
def event_v1_deprecated(t, ns):
    return post_event(t, ns, new_event(ns, "e", **{**COMPLETE, "deprecatedCount": 2}), group="v1")


# --- Leases ------------------------------------------------------------------------------------

LEASES = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"


def lease(name, **spec):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name}, "spec": spec}


@check("leases: the operator's Lease round-trips its MicroTime values exactly")
def lease_ok(t, ns):
    r = t.http("POST", LEASES.format(ns=ns), lease("l", holderIdentity="a", leaseDurationSeconds=15,
                                                   acquireTime=MICRO, renewTime=MICRO, leaseTransitions=0))
    return {"code": r.status, "renewTime": r.json["spec"]["renewTime"], "acquireTime": r.json["spec"]["acquireTime"]}


@check("leases: renewTime without microseconds is 400")
def lease_bad_time(t, ns):
    r = t.http("POST", LEASES.format(ns=ns), lease("l", renewTime="2026-01-02T03:04:05Z"))
    return status_of(r, with_message=False)


@check("leases: a zero duration and negative transitions are 422")
def lease_bad_numbers(t, ns):
    r = t.http("POST", LEASES.format(ns=ns), lease("l", leaseDurationSeconds=0, leaseTransitions=-1))
    return status_of(r)


@check("leases: a stale resourceVersion on renew is 409")
def lease_conflict(t, ns):
    body = t.http("POST", LEASES.format(ns=ns), lease("l", holderIdentity="a")).json
    body["spec"]["holderIdentity"] = "b"
    assert t.http("PUT", LEASES.format(ns=ns) + "/l", body).status == 200
    body["spec"]["holderIdentity"] = "c"
    return status_of(t.http("PUT", LEASES.format(ns=ns) + "/l", body), with_message=False)


# --- Namespaces --------------------------------------------------------------------------------

@check("namespaces: a new Namespace is Active with the kubernetes finalizer and name label")
def namespace_create(t, ns):
    r = t.http("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns + "-x"}})
    body = r.json
    return {"code": r.status, "phase": body["status"].get("phase"), "finalizers": body["spec"].get("finalizers"),
            "label": body["metadata"]["labels"].get("kubernetes.io/metadata.name") == ns + "-x"}


@check("namespaces: deleting one answers it Terminating")
def namespace_delete(t, ns):
    name = ns + "-gone"
    t.http("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    deleted = t.http("DELETE", "/api/v1/namespaces/" + name)
    body = deleted.json or {}
    return {"code": deleted.status, "kind": body.get("kind"), "phase": (body.get("status") or {}).get("phase"),
            "deleting": "deletionTimestamp" in (body.get("metadata") or {})}


@check("namespaces: one held by an object's finalizer stays Terminating and refuses creates (403)")
def namespace_terminating(t, ns):
    # (The suite's real server runs no namespace controller, so an empty namespace would stay
    # Terminating there; one held by a finalizer stays Terminating on any cluster.)
    name = ns + "-held"
    t.http("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    t.http("POST", PG.format(ns=name), pg("db", finalizers=["example.com/hold"]))
    t.http("DELETE", "/api/v1/namespaces/" + name)
    create = t.http("POST", f"/api/v1/namespaces/{name}/configmaps",
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    # Whether the held object is marked for deletion is the namespace controller's doing (not
    # the API server's), so it is not compared.
    return {"phase": (t.http("GET", "/api/v1/namespaces/" + name).json.get("status") or {}).get("phase"),
            "create inside": status_of(create)}
