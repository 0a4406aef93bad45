package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the throwaway key material one control plane needs: a CA, the API server's serving
// certificate signed by it, and the key pair ServiceAccount tokens are signed with.
type pki struct {
	caFile, certFile, keyFile string
	saKeyFile, saPubFile      string
	caPEM                     []byte
}

func writePEM(path, kind string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode)
}

func newKey() (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	return key, der, err
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// parseIPs reads --serving-ip values.
func parseIPs(values []string) ([]net.IP, error) {
	ips := make([]net.IP, 0, len(values))
	for _, v := range values {
		ip := net.ParseIP(v)
		if ip == nil {
			return nil, fmt.Errorf("--serving-ip %q: not an IP address", v)
		}
		ips = append(ips, ip)
	}
	return ips, nil
}

// makePKI writes everything into dir; the serving certificate is valid for the loopback
// address, the extra addresses (where in-cluster clients reach the API server, e.g. the
// kubernetes Service's) and the names in-cluster clients use for the API server.
func makePKI(dir string, extraIPs []net.IP) (*pki, error) {
	p := &pki{
		caFile: filepath.Join(dir, "ca.crt"), certFile: filepath.Join(dir, "apiserver.crt"),
		keyFile: filepath.Join(dir, "apiserver.key"), saKeyFile: filepath.Join(dir, "sa.key"),
		saPubFile: filepath.Join(dir, "sa.pub"),
	}
	now := time.Now().Add(-time.Hour)
	caKey, _, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("CA key: %w", err)
	}
	caTemplate := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "dha-kube-control-plane CA"},
		NotBefore: now, NotAfter: now.Add(7 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	servingKey, servingDER, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("serving key: %w", err)
	}
	servingTemplate := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now, NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: append([]net.IP{net.ParseIP("127.0.0.1")}, extraIPs...),
	}
	certDER, err := x509.CreateCertificate(rand.Reader, servingTemplate, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	saKey, saDER, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("ServiceAccount key: %w", err)
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("ServiceAccount public key: %w", err)
	}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	for _, w := range []struct {
		path, kind string
		der        []byte
		mode       os.FileMode
	}{
		{p.caFile, "CERTIFICATE", caDER, 0o644},
		{p.certFile, "CERTIFICATE", certDER, 0o644},
		{p.keyFile, "PRIVATE KEY", servingDER, 0o600},
		{p.saKeyFile, "PRIVATE KEY", saDER, 0o600},
		{p.saPubFile, "PUBLIC KEY", saPub, 0o644},
	} {
		if err := writePEM(w.path, w.kind, w.der, w.mode); err != nil {
			return nil, err
		}
	}
	return p, nil
}
