"""The check registry and the helpers checks use to turn responses into comparable facts.

A check is a function (target, namespace) -> observation: plain JSON-able data holding only
what a client could notice and depend on. The same check runs against both servers in a
namespace of its own; the two observations must be equal for the check to match.
"""

import re

CHECKS = []  # (name, function), in the order they run


def check(name):
    def register(fn):
        CHECKS.append((name, fn))
        return fn
    return register


# Values that differ between any two runs of the same server.
VOLATILE_KEYS = {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "time", "lastTransitionTime",
                 "selfLink", "generateName"}
UID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


def normalize(value, drop=("managedFields",)):
    """Replaces uids, timestamps and resourceVersions by placeholders and drops `drop` keys."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in drop:
                continue
            out[k] = "<" + k + ">" if k in VOLATILE_KEYS and isinstance(v, (str, int)) else normalize(v, drop)
        return out
    if isinstance(value, list):
        return [normalize(v, drop) for v in value]
    if isinstance(value, str):
        value = UID_RE.sub("<uid>", value)
        value = TIME_RE.sub("<time>", value)
        return re.sub(r"https://127\.0\.0\.1:\d+", "<server>", value)
    return value


def status_of(response, with_message=True):
    """An error answer as a client sees it: HTTP code, Status reason, message and causes' fields."""
    body = response.json if isinstance(response.json, dict) else {}
    out = {"code": response.status}
    if body.get("kind") == "Status":
        out["reason"] = body.get("reason", "")
        if with_message:
            out["message"] = normalize(body.get("message", ""))
        causes = (body.get("details") or {}).get("causes") or []
        if causes:
            out["causeFields"] = sorted({c.get("field", "") for c in causes})
    else:
        out["kind"] = body.get("kind", "")
    return out


def pick(obj, *paths):
    """{path: value} for dotted paths (missing = None)."""
    out = {}
    for path in paths:
        cur = obj
        for part in path.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        out[path] = normalize(cur)
    return out


def names(list_body):
    return [i["metadata"]["name"] for i in (list_body or {}).get("items", [])]


def event_types(watch_response):
    return [e.get("type") for e in watch_response.lines()]
