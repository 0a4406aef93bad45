package main

import (
	"os"
	"path/filepath"
)

// The audit policy: every write with its request and response body (a test asks "who wrote
// what, and what did the server answer"), reads as metadata (a 403 on a list shows up too),
// and nothing for the API server's own loopback traffic and health probes, which are noise.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:apiserver"]
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*", "/openapi*", "/version"]
- level: RequestResponse
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: Metadata
`

func writeAuditPolicy(dir string) (string, error) {
	path := filepath.Join(dir, "audit-policy.yaml")
	return path, os.WriteFile(path, []byte(auditPolicy), 0o644)
}
