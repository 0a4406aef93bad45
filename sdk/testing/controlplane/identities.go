package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// identity is one bearer token the API server knows (its static token file) and the
// kubeconfig written for it.
type identity struct {
	Name       string   `json:"-"`
	Username   string   `json:"username"`
	Groups     []string `json:"groups"`
	Token      string   `json:"token"`
	Kubeconfig string   `json:"kubeconfig"`
}

// parseIdentity reads NAME=USERNAME[,GROUP...].
func parseIdentity(spec string) (identity, error) {
	name, rest, ok := strings.Cut(spec, "=")
	parts := strings.Split(rest, ",")
	if !ok || name == "" || parts[0] == "" {
		return identity{}, fmt.Errorf("--identity %q: want NAME=USERNAME[,GROUP...]", spec)
	}
	return identity{Name: name, Username: parts[0], Groups: parts[1:]}, nil
}

// parseServiceAccount reads NAME=NAMESPACE:SERVICEACCOUNT: the username and groups the API
// server gives a ServiceAccount's own tokens, so RBAC bindings to the ServiceAccount apply.
func parseServiceAccount(spec string) (identity, error) {
	name, rest, ok := strings.Cut(spec, "=")
	ns, sa, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || name == "" || ns == "" || sa == "" {
		return identity{}, fmt.Errorf("--service-account %q: want NAME=NAMESPACE:SERVICEACCOUNT", spec)
	}
	return identity{Name: name, Username: "system:serviceaccount:" + ns + ":" + sa,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}}, nil
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeIdentities gives every identity a fresh token, writes the API server's token file and
// one kubeconfig per identity; returns the token file's path.
func writeIdentities(dir, serverURL string, caPEM []byte, ids map[string]*identity) (string, error) {
	names := make([]string, 0, len(ids))
	for name := range ids {
		names = append(names, name)
	}
	sort.Strings(names)
	var tokens strings.Builder
	for i, name := range names {
		id := ids[name]
		id.Token = randomToken()
		fmt.Fprintf(&tokens, "%s,%s,uid-%d,\"%s\"\n", id.Token, id.Username, i+1, strings.Join(id.Groups, ","))
		id.Kubeconfig = filepath.Join(dir, "kubeconfig-"+name)
		if err := os.WriteFile(id.Kubeconfig, []byte(kubeconfig(serverURL, caPEM, name, id.Token)), 0o600); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, "tokens.csv")
	return path, os.WriteFile(path, []byte(tokens.String()), 0o600)
}

func kubeconfig(serverURL string, caPEM []byte, name, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: dha-kube
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: %s
  context: {cluster: dha-kube, user: %s}
current-context: %s
`, serverURL, base64.StdEncoding.EncodeToString(caPEM), name, token, name, name, name)
}
