"""Checks of discovery and object semantics: CRUD, resourceVersion, generation, finalizers,
patches, server-side apply, /status and /scale."""

import json

from check import check, names, normalize, pick, status_of

PG = "/apis/apps.cozystack.io/v1alpha1/namespaces/{ns}/postgreses"
CLUSTERS = "/apis/postgresql.cnpg.io/v1/namespaces/{ns}/clusters"
CONFIGMAPS = "/api/v1/namespaces/{ns}/configmaps"


def pg(name, replicas=2, labels=None, finalizers=None):
    meta = {"name": name, "labels": labels or {}}
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres", "metadata": meta,
            "spec": {"replicas": replicas}}


def create_pg(t, ns, name, **kw):
    r = t.http("POST", PG.format(ns=ns), pg(name, **kw))
    assert r.status == 201, r.text
    return r.json


# --- discovery ---------------------------------------------------------------------------------

CORE_RESOURCES = ["configmaps", "events", "namespaces", "resourcequotas", "resourcequotas/status", "secrets",
                  "serviceaccounts", "namespaces/status"]


@check("discovery: /api/v1 describes the core kinds the operator uses")
def discovery_core(t, ns):
    body = t.http("GET", "/api/v1").json
    out = {}
    for r in body["resources"]:
        if r["name"] in CORE_RESOURCES:
            out[r["name"]] = {"kind": r["kind"], "namespaced": r["namespaced"], "verbs": sorted(r["verbs"]),
                              "shortNames": sorted(r.get("shortNames", []))}
    return out


@check("discovery: a CRD's group version lists its resource, shortNames, categories and subresources")
def discovery_crd(t, ns):
    body = t.http("GET", "/apis/apps.cozystack.io/v1alpha1").json
    return {r["name"]: {"kind": r["kind"], "namespaced": r["namespaced"], "verbs": sorted(r["verbs"]),
                        "shortNames": r.get("shortNames"), "categories": r.get("categories"),
                        "singularName": r.get("singularName")}
            for r in body["resources"]}


@check("discovery: /apis names the groups and preferred versions the operator needs")
def discovery_groups(t, ns):
    wanted = {"apps.cozystack.io", "postgresql.cnpg.io", "helm.toolkit.fluxcd.io", "coordination.k8s.io",
              "events.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "authorization.k8s.io",
              "authentication.k8s.io", "autoscaling.cozystack.io"}
    body = t.http("GET", "/apis").json
    return {g["name"]: g["preferredVersion"]["version"] for g in body["groups"] if g["name"] in wanted}


@check("discovery: aggregated discovery (what kubectl 1.32 asks for) answers in kind APIGroupDiscoveryList")
def discovery_aggregated(t, ns):
    r = t.http("GET", "/apis", accept="application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    body = r.json or {}
    groups = {g["metadata"]["name"]: [v["version"] for v in g["versions"]] for g in body.get("items", [])}
    return {"code": r.status, "kind": body.get("kind"), "apps.cozystack.io": groups.get("apps.cozystack.io")}


@check("discovery: /version has the fields clients read")
def discovery_version(t, ns):
    body = t.http("GET", "/version").json
    return sorted(k for k in body if k in {"major", "minor", "gitVersion", "platform", "goVersion"})


@check("discovery: OpenAPI v3 serves a document for a CRD's group version")
def discovery_openapi(t, ns):
    index = t.http("GET", "/openapi/v3").json
    path = "apis/apps.cozystack.io/v1alpha1"
    url = index["paths"].get(path, {}).get("serverRelativeURL")
    doc = t.http("GET", url).json if url else {}
    schemas = (doc.get("components") or {}).get("schemas") or {}
    return {"listed": url is not None, "Postgres schemas": sorted(k for k in schemas if k.endswith(".Postgres"))}


# --- create / read / update --------------------------------------------------------------------

@check("create: a custom object gets uid, resourceVersion, generation 1 and creationTimestamp")
def create_custom(t, ns):
    body = create_pg(t, ns, "db")
    return {"kind": body["kind"], "apiVersion": body["apiVersion"],
            "has": sorted(k for k in body["metadata"] if k in {"uid", "resourceVersion", "creationTimestamp",
                                                                 "generation", "namespace"}),
            "generation": body["metadata"].get("generation")}


@check("create: a ConfigMap has no generation")
def create_configmap(t, ns):
    r = t.http("POST", CONFIGMAPS.format(ns=ns),
               {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}})
    return {"code": r.status, "generation": r.json["metadata"].get("generation"), "kind": r.json.get("kind")}


@check("create: a built-in body may leave kind and apiVersion out, a custom one may not")
def create_without_kind(t, ns):
    typed = t.http("POST", CONFIGMAPS.format(ns=ns), {"metadata": {"name": "c"}})
    custom = t.http("POST", PG.format(ns=ns), {"metadata": {"name": "db"}, "spec": {"replicas": 1}})
    return {"configmap": typed.status, "kind filled in": (typed.json or {}).get("kind"),
            "custom": status_of(custom, with_message=False)}


@check("create: an existing name is 409 AlreadyExists")
def create_twice(t, ns):
    create_pg(t, ns, "db")
    return status_of(t.http("POST", PG.format(ns=ns), pg("db")))


@check("create: generateName makes a name with a random suffix")
def create_generate_name(t, ns):
    r = t.http("POST", PG.format(ns=ns), {"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres",
                                          "metadata": {"generateName": "db-"}, "spec": {"replicas": 1}})
    name = r.json["metadata"]["name"]
    return {"code": r.status, "prefix": name.startswith("db-"), "suffix length": len(name) - 3}


@check("create: a body in another namespace than the URL is 400")
def create_wrong_namespace(t, ns):
    body = pg("db")
    body["metadata"]["namespace"] = "elsewhere"
    return status_of(t.http("POST", PG.format(ns=ns), body))


@check("create: into a namespace that does not exist is 404")
def create_missing_namespace(t, ns):
    return status_of(t.http("POST", PG.format(ns=ns + "-missing"), pg("db")))


@check("get: a missing object is 404 NotFound with kube's message")
def get_missing(t, ns):
    return status_of(t.http("GET", PG.format(ns=ns) + "/nope"))


@check("update: a stale resourceVersion is 409 Conflict")
def update_stale(t, ns):
    body = create_pg(t, ns, "db")
    body["spec"]["replicas"] = 3
    assert t.http("PUT", PG.format(ns=ns) + "/db", body).status == 200
    body["spec"]["replicas"] = 4
    return status_of(t.http("PUT", PG.format(ns=ns) + "/db", body))


@check("update: PUT of a custom object without resourceVersion is 422")
def update_without_rv(t, ns):
    body = create_pg(t, ns, "db")
    del body["metadata"]["resourceVersion"]
    return status_of(t.http("PUT", PG.format(ns=ns) + "/db", body))


@check("update: generation moves with spec, not with labels or status")
def update_generation(t, ns):
    create_pg(t, ns, "db")
    path = PG.format(ns=ns) + "/db"
    seen = []
    for target, patch in [("", {"metadata": {"labels": {"a": "b"}}}), ("", {"spec": {"replicas": 5}}),
                          ("/status", {"status": {"phase": "Ready"}})]:
        r = t.http("PATCH", path + target, patch, "application/merge-patch+json")
        seen.append(r.json["metadata"]["generation"])
    return seen


@check("update: a no-op write keeps the resourceVersion")
def update_noop(t, ns):
    body = create_pg(t, ns, "db")
    r = t.http("PATCH", PG.format(ns=ns) + "/db", {"spec": {"replicas": 2}}, "application/merge-patch+json")
    return r.json["metadata"]["resourceVersion"] == body["metadata"]["resourceVersion"]


@check("status: the main resource ignores status and /status ignores spec")
def status_subresource(t, ns):
    create_pg(t, ns, "db")
    path = PG.format(ns=ns) + "/db"
    main = t.http("PATCH", path, {"spec": {"replicas": 3}, "status": {"phase": "x"}}, "application/merge-patch+json")
    status = t.http("PATCH", path + "/status", {"spec": {"replicas": 9}, "status": {"phase": "Ready"}},
                    "application/merge-patch+json")
    return {"main status": main.json.get("status"), "spec after /status": status.json["spec"]["replicas"],
            "status after /status": status.json.get("status")}


@check("dryRun: a create is validated and answered but not stored")
def dry_run(t, ns):
    r = t.http("POST", PG.format(ns=ns) + "?dryRun=All", pg("db"))
    return {"code": r.status, "stored": t.http("GET", PG.format(ns=ns) + "/db").status}


# --- delete and finalizers ---------------------------------------------------------------------

@check("delete: a custom object without finalizers answers a Status")
def delete_custom(t, ns):
    create_pg(t, ns, "db")
    r = t.http("DELETE", PG.format(ns=ns) + "/db")
    return {"code": r.status, "body": pick(r.json, "kind", "status", "details.name", "details.group", "details.kind")}


@check("delete: a ConfigMap answers a Status")
def delete_configmap(t, ns):
    t.http("POST", CONFIGMAPS.format(ns=ns), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    r = t.http("DELETE", CONFIGMAPS.format(ns=ns) + "/c")
    return {"code": r.status, "body": pick(r.json, "kind", "status", "details.name", "details.kind")}


@check("delete: a ServiceAccount answers with the object")
def delete_service_account(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/serviceaccounts",
           {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}})
    r = t.http("DELETE", f"/api/v1/namespaces/{ns}/serviceaccounts/sa")
    return {"code": r.status, "kind": (r.json or {}).get("kind")}


@check("delete: finalizers keep the object with a deletionTimestamp until they are removed")
def delete_finalizers(t, ns):
    create_pg(t, ns, "db", finalizers=["example.com/hold"])
    path = PG.format(ns=ns) + "/db"
    first = t.http("DELETE", path)
    again = t.http("DELETE", path)
    add = t.http("PATCH", path, {"metadata": {"finalizers": ["example.com/hold", "example.com/more"]}},
                 "application/merge-patch+json")
    release = t.http("PATCH", path, {"metadata": {"finalizers": None}}, "application/merge-patch+json")
    return {"first": {"code": first.status, "kind": first.json.get("kind"),
                      "deleting": "deletionTimestamp" in first.json.get("metadata", {})},
            "again": {"code": again.status, "kind": again.json.get("kind")},
            "adding a finalizer": status_of(add),
            "release": release.status, "after": t.http("GET", path).status}


@check("delete: a uid precondition that does not match is 409")
def delete_precondition(t, ns):
    create_pg(t, ns, "db")
    r = t.http("DELETE", PG.format(ns=ns) + "/db",
               {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}})
    return status_of(r, with_message=False)


@check("delete: a collection delete by label answers the deleted objects")
def delete_collection(t, ns):
    create_pg(t, ns, "a", labels={"x": "1"})
    create_pg(t, ns, "b", labels={"x": "2"})
    r = t.http("DELETE", PG.format(ns=ns) + "?labelSelector=x%3D1")
    return {"code": r.status, "kind": r.json.get("kind"), "items": names(r.json),
            "left": names(t.http("GET", PG.format(ns=ns)).json)}


# --- patches -----------------------------------------------------------------------------------

@check("patch: a merge patch with null removes the key")
def patch_merge(t, ns):
    t.http("POST", PG.format(ns=ns), {**pg("db"), "spec": {"replicas": 2, "extra": {"a": 1, "b": 2}}})
    r = t.http("PATCH", PG.format(ns=ns) + "/db", {"spec": {"extra": {"a": None}}}, "application/merge-patch+json")
    return r.json["spec"]


@check("patch: a JSON patch applies in order and a failed test op is refused")
def patch_json(t, ns):
    create_pg(t, ns, "db")
    ok = t.http("PATCH", PG.format(ns=ns) + "/db",
                [{"op": "test", "path": "/spec/replicas", "value": 2}, {"op": "replace", "path": "/spec/replicas", "value": 4}],
                "application/json-patch+json")
    bad = t.http("PATCH", PG.format(ns=ns) + "/db", [{"op": "test", "path": "/spec/replicas", "value": 9}],
                 "application/json-patch+json")
    return {"ok": ok.json["spec"]["replicas"], "failed test": status_of(bad, with_message=False)}


@check("patch: a strategic merge patch on a custom object is 415")
def patch_strategic_custom(t, ns):
    create_pg(t, ns, "db")
    return status_of(t.http("PATCH", PG.format(ns=ns) + "/db", {"spec": {"replicas": 3}},
                            "application/strategic-merge-patch+json"))


@check("patch: a strategic merge patch merges lists by their merge key (ServiceAccount secrets)")
def patch_strategic_core(t, ns):
    t.http("POST", f"/api/v1/namespaces/{ns}/serviceaccounts",
           {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}, "secrets": [{"name": "one"}]})
    r = t.http("PATCH", f"/api/v1/namespaces/{ns}/serviceaccounts/sa", {"secrets": [{"name": "two"}]},
               "application/strategic-merge-patch+json")
    return [s["name"] for s in r.json.get("secrets", [])]


@check("patch: an unknown content type is 415")
def patch_unknown_type(t, ns):
    create_pg(t, ns, "db")
    return status_of(t.http("PATCH", PG.format(ns=ns) + "/db", "{}", "text/plain"), with_message=False)


# --- server-side apply -------------------------------------------------------------------------

def apply(t, ns, name, spec, manager, force=False):
    body = json.dumps({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres",
                       "metadata": {"name": name}, "spec": spec})
    q = f"?fieldManager={manager}" + ("&force=true" if force else "")
    return t.http("PATCH", PG.format(ns=ns) + "/" + name + q, body, "application/apply-patch+yaml")


def managers(body):
    return sorted((m["manager"], m["operation"]) for m in body["metadata"].get("managedFields", []))


@check("apply: server-side apply creates the object and records its field manager")
def apply_create(t, ns):
    r = apply(t, ns, "db", {"replicas": 2}, "alice")
    return {"code": r.status, "managers": managers(r.json)}


@check("apply: a second manager changing an owned field without force is 409 Conflict")
def apply_conflict(t, ns):
    apply(t, ns, "db", {"replicas": 2}, "alice")
    r = apply(t, ns, "db", {"replicas": 3}, "bob")
    return status_of(r, with_message=False)


@check("apply: force takes the field over")
def apply_force(t, ns):
    apply(t, ns, "db", {"replicas": 2}, "alice")
    r = apply(t, ns, "db", {"replicas": 3}, "bob", force=True)
    return {"code": r.status, "replicas": r.json["spec"]["replicas"], "managers": managers(r.json)}


@check("apply: a field the manager stops applying is removed")
def apply_prune(t, ns):
    apply(t, ns, "db", {"replicas": 2, "extra": "x"}, "alice")
    r = apply(t, ns, "db", {"replicas": 2}, "alice")
    return r.json["spec"]


@check("apply: without fieldManager it is 422")
def apply_no_manager(t, ns):
    body = json.dumps(pg("db"))
    return status_of(t.http("PATCH", PG.format(ns=ns) + "/db", body, "application/apply-patch+yaml"),
                     with_message=False)


# --- /scale ------------------------------------------------------------------------------------

def cluster(ns, t, instances=2):
    r = t.http("POST", CLUSTERS.format(ns=ns), {"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
                                                "metadata": {"name": "pg"}, "spec": {"instances": instances}})
    assert r.status == 201, r.text
    t.http("PATCH", CLUSTERS.format(ns=ns) + "/pg/status", {"status": {"instances": instances}},
           "application/merge-patch+json")


@check("scale: GET /scale answers an autoscaling/v1 Scale")
def scale_get(t, ns):
    cluster(ns, t)
    r = t.http("GET", CLUSTERS.format(ns=ns) + "/pg/scale")
    return normalize(r.json)


@check("scale: PATCH /scale writes specReplicasPath")
def scale_patch(t, ns):
    cluster(ns, t)
    r = t.http("PATCH", CLUSTERS.format(ns=ns) + "/pg/scale", {"spec": {"replicas": 4}}, "application/merge-patch+json")
    after = t.http("GET", CLUSTERS.format(ns=ns) + "/pg").json
    return {"code": r.status, "scale replicas": r.json["spec"]["replicas"], "instances": after["spec"]["instances"],
            "generation": after["metadata"]["generation"]}


@check("scale: a negative replica count is 422")
def scale_negative(t, ns):
    cluster(ns, t)
    r = t.http("PATCH", CLUSTERS.format(ns=ns) + "/pg/scale", {"spec": {"replicas": -1}}, "application/merge-patch+json")
    return status_of(r, with_message=False)


@check("scale: a kind without /scale answers 404")
def scale_missing(t, ns):
    create_pg(t, ns, "db")
    return t.http("GET", PG.format(ns=ns) + "/db/scale").status


# --- schema ------------------------------------------------------------------------------------

@check("schema: a wrong type in a custom object is 422 with the field named")
def schema_wrong_type(t, ns):
    r = t.http("POST", PG.format(ns=ns), {**pg("db"), "spec": {"replicas": "two"}})
    return status_of(r)


@check("schema: an unknown field is pruned with a warning header")
def schema_unknown_field(t, ns):
    r = t.http("POST", CLUSTERS.format(ns=ns), {"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
                                                "metadata": {"name": "pg"}, "spec": {"instances": 1},
                                                "bogus": 1})
    warnings = [w for w in r.headers.get("warning", []) if "bogus" in w]
    return {"code": r.status, "pruned": "bogus" not in (r.json or {}), "warned": len(warnings)}
