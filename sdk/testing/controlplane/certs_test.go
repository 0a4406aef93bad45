package main

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
)

// A client in a Pod reaches the API server at the kubernetes Service's address: the serving
// certificate must name it, next to 127.0.0.1, and verify against the CA the launcher writes.
func TestServingCertificateNamesTheExtraIPs(t *testing.T) {
	dir := t.TempDir()
	ips, err := parseIPs([]string{"10.96.0.1", "10.213.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := makePKI(dir, ips)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(p.caPEM)
	for _, host := range []string{"127.0.0.1", "10.96.0.1", "10.213.0.1", "kubernetes.default.svc"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if err := cert.VerifyHostname("10.96.0.2"); err == nil {
		t.Error("10.96.0.2 was not asked for, yet the certificate is valid for it")
	}
	if _, err := parseIPs([]string{"not-an-ip"}); err == nil {
		t.Error("a bad --serving-ip was accepted")
	}
}
