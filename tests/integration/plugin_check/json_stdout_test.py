#!/usr/bin/env python3
"""Every command that prints JSON prints only JSON on stdout, with a plugin that logs.

json_stdout_test.py DB_AUTOSCALER DHA_PLUGIN_CHECK CHATTY_SO SOURCE_DIR

Runs each JSON-printing command of db-autoscaler and dha-plugin-check with the chatty fixture
(tests/integration/plugin_check/chatty_plugin.cpp), whose plugins log through the host at create
and at every call. Each command's stdout must parse as one JSON document (as `cmd | jq` and
`cmd | python3 -m json.tool` need), and the fixture's lines must be on stderr, so the check is
not passing because the plugin was never called.
"""
import json
import os
import subprocess
import sys
import tempfile

MARK = "chatty plugin says: "


def main():
    cli, checker, chatty_so, source_dir = sys.argv[1:5]
    plugin_dir = os.path.dirname(chatty_so)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "orders.json")
        with open(target, "w") as f:
            json.dump({"apiVersion": "db.example.com/v1", "kind": "AcmeDB",
                       "metadata": {"name": "orders", "namespace": "tenant-a"}, "spec": {"replicas": 3}}, f)
        commands = [
            # (name, argv, whether the plugin is called: inspect only loads the library)
            ("dha-plugin-check --json", [checker, chatty_so, "--json", "--iterations", "1"], True),
            ("dha-plugin-check --print-samples", [checker, chatty_so, "--print-samples"], True),
            ("db-autoscaler plugin inspect", [cli, "plugin", "inspect", chatty_so], False),
            ("db-autoscaler metrics",
             [cli, "metrics", "--kind", "AcmeDB", "--api-group", "db.example.com", "-n", "tenant-a", "--name",
              "orders", "--metrics-url", "http://127.0.0.1:9", "--metrics-plugin", "chatty-metrics",
              "--plugin-dir", plugin_dir, "--replicas", "3"], True),
            ("db-autoscaler simulate --json -",
             [cli, "simulate", "--dha", os.path.join(source_dir, "examples/load/dha.yaml"),
              "--load", os.path.join(source_dir, "examples/load/spike.csv"), "--target", target,
              "--plugin-dir", plugin_dir, "--plugins", "chatty-acmedb", "--json", "-"], True),
        ]
        for name, argv, calls_plugin in commands:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp)
            try:
                json.loads(run.stdout)
            except json.JSONDecodeError as e:
                failures.append(f"{name} (exit {run.returncode}): stdout is not one JSON document ({e}):\n"
                                f"{run.stdout[:2000]}\n--- stderr:\n{run.stderr[:2000]}")
                continue
            if calls_plugin and MARK not in run.stderr:
                failures.append(f"{name} (exit {run.returncode}): the fixture's log lines are not on stderr, so "
                                f"this run proves nothing:\n{run.stderr[:2000]}")
                continue
            print(f"ok {name}: exit {run.returncode}, {len(run.stdout)} bytes of JSON on stdout, "
                  f"{run.stderr.count(MARK)} plugin log lines on stderr")
    for failure in failures:
        print("FAIL " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
