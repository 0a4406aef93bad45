#!/usr/bin/python3
"""Helm post-renderer for realnode.chart_faults: the release's manifests (stdin to stdout) with
one verb taken out of the ClusterRole rule that grants it on one resource.

    drop_verb.py CLUSTERROLE RESOURCE VERB

Fails (so `helm install` does) when no rule of CLUSTERROLE grants exactly VERB on RESOURCE alone:
the test then would not be testing what it says."""
import sys

import yaml


def main() -> int:
    role, resource, verb = sys.argv[1:4]
    docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
    dropped = 0
    for doc in docs:
        if doc.get("kind") != "ClusterRole" or doc.get("metadata", {}).get("name") != role:
            continue
        for rule in doc.get("rules") or []:
            if rule.get("resources") == [resource] and verb in rule.get("verbs", []):
                rule["verbs"].remove(verb)
                dropped += 1
    if dropped != 1:
        sys.stderr.write(f"drop_verb.py: {dropped} rules of ClusterRole {role} grant {verb} on {resource} alone, want 1\n")
        return 1
    yaml.safe_dump_all(docs, sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
