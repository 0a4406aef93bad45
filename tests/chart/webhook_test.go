package charttest

import (
	"strings"
	"testing"

	"dha.local/charttest/helmrender"
)

const webhookConfigName = "db-autoscaler-replicas-ownership"

// What the apiserver sends to the webhook, and where.
func TestWebhookRegistration(t *testing.T) {
	r := renderChart(t, nil)
	vwc := only(t, r, "ValidatingWebhookConfiguration", webhookConfigName)
	w := "webhooks[0]."
	expectEqual(t, "webhook name", at(vwc, w+"name"), "replicas.autoscaling.cozystack.io")
	expectEqual(t, "clientConfig.service.path", at(vwc, w+"clientConfig.service.path"), "/validate-helmrelease-replicas")
	expectEqual(t, "failurePolicy", at(vwc, w+"failurePolicy"), "Ignore")
	expectEqual(t, "timeoutSeconds", at(vwc, w+"timeoutSeconds"), 5)
	expectEqual(t, "sideEffects", at(vwc, w+"sideEffects"), "None")
	expectEqual(t, "admissionReviewVersions", at(vwc, w+"admissionReviewVersions"), []string{"v1"})
	expectEqual(t, "rules[0].apiGroups", at(vwc, w+"rules[0].apiGroups"), []string{"helm.toolkit.fluxcd.io"})
	expectEqual(t, "rules[0].resources", at(vwc, w+"rules[0].resources"), []string{"helmreleases"})
	expectEqual(t, "rules[0].apiVersions", at(vwc, w+"rules[0].apiVersions"), []string{"v2", "v2beta2", "v2beta1"})
	// UPDATE guards replicas; CREATE and DELETE keep a managed release from being deleted and
	// re-created without its marker.
	expectEqual(t, "rules[0].operations", at(vwc, w+"rules[0].operations"), []string{"CREATE", "UPDATE", "DELETE"})
	// The status subresource is not ours to guard: Flux writes it constantly.
	for _, res := range strs(at(vwc, w+"rules[0].resources")) {
		if strings.Contains(res, "/") {
			t.Errorf("webhook covers subresource %s", res)
		}
	}

	// The client config reaches the webhook Service, whose port 443 leads to the container's
	// webhook port.
	svcName := at(vwc, w+"clientConfig.service.name").(string)
	expectEqual(t, "service namespace", at(vwc, w+"clientConfig.service.namespace"), releaseNamespace)
	svc := only(t, r, "Service", svcName)
	expectEqual(t, "service port", at(svc, "spec.ports[0].port"), at(vwc, w+"clientConfig.service.port"))
	expectEqual(t, "service targetPort", at(svc, "spec.ports[0].targetPort"), "webhook")
	d := only(t, r, "Deployment", "db-autoscaler")
	expectEqual(t, "container webhook port", at(d, "spec.template.spec.containers[0].ports[0]"),
		map[string]interface{}{"name": "webhook", "containerPort": 9443, "protocol": "TCP"})
}

// One DHA per target: DHA creates and updates (not their status) reach the operator's
// /validate-dha-target route through the same Service.
func TestWebhookRegistrationOneDHAPerTarget(t *testing.T) {
	r := renderChart(t, nil)
	vwc := only(t, r, "ValidatingWebhookConfiguration", webhookConfigName)
	w := "webhooks[1]."
	expectEqual(t, "webhook name", at(vwc, w+"name"), "target.autoscaling.cozystack.io")
	expectEqual(t, "clientConfig.service.path", at(vwc, w+"clientConfig.service.path"), "/validate-dha-target")
	expectEqual(t, "same service", at(vwc, w+"clientConfig.service.name"), at(vwc, "webhooks[0].clientConfig.service.name"))
	expectEqual(t, "failurePolicy", at(vwc, w+"failurePolicy"), "Ignore")
	expectEqual(t, "sideEffects", at(vwc, w+"sideEffects"), "None")
	expectEqual(t, "operations", at(vwc, w+"rules[0].operations"), []string{"CREATE", "UPDATE"})
	expectEqual(t, "apiGroups", at(vwc, w+"rules[0].apiGroups"), []string{"autoscaling.cozystack.io"})
	expectEqual(t, "resources", at(vwc, w+"rules[0].resources"), []string{"databasehorizontalautoscalers"})
}

// failurePolicy is the platform's trade-off to make (README "Webhook failure policy"): both
// values render, anything else is refused by the schema before it reaches the apiserver.
func TestWebhookFailurePolicyIsConfigurable(t *testing.T) {
	cases := []struct {
		value   string
		wantErr string
	}{
		{"Ignore", ""},
		{"Fail", ""},
		{"Sometimes", "failurePolicy"},
		{"ignore", "failurePolicy"},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			r, err := tryRender(t, nil, "webhook.failurePolicy="+tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error naming %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			vwc := only(t, r, "ValidatingWebhookConfiguration", webhookConfigName)
			expectEqual(t, "failurePolicy", at(vwc, "webhooks[0].failurePolicy"), tc.value)
		})
	}
	hardened := only(t, renderChart(t, []string{"hardened.yaml"}), "ValidatingWebhookConfiguration", webhookConfigName)
	expectEqual(t, "hardened failurePolicy", at(hardened, "webhooks[0].failurePolicy"), "Fail")
	expectEqual(t, "hardened timeout", at(hardened, "webhooks[0].timeoutSeconds"), 3)

	if len(ofKind(renderChart(t, nil, "webhook.enabled=false"), "ValidatingWebhookConfiguration")) != 0 {
		t.Error("webhook.enabled=false still renders the ValidatingWebhookConfiguration")
	}
}

// The private CA chain: self-signed root, CA issuer, serving certificate valid for the names the
// apiserver and the scraper use, and the CA injected into the webhook configuration.
func TestCertificateChain(t *testing.T) {
	r := renderChart(t, nil, "certificates.certManager.enabled=true")
	selfSigned := only(t, r, "Issuer", "db-autoscaler-selfsigned")
	if at(selfSigned, "spec.selfSigned") == nil {
		t.Error("the root issuer is not selfSigned")
	}
	ca := only(t, r, "Certificate", "db-autoscaler-ca")
	expectEqual(t, "CA isCA", at(ca, "spec.isCA"), true)
	expectEqual(t, "CA issuer", at(ca, "spec.issuerRef.name"), "db-autoscaler-selfsigned")
	expectEqual(t, "CA key rotation", at(ca, "spec.privateKey.rotationPolicy"), "Never")
	caIssuer := only(t, r, "Issuer", "db-autoscaler-ca")
	expectEqual(t, "CA issuer secret", at(caIssuer, "spec.ca.secretName"), at(ca, "spec.secretName"))

	serving := only(t, r, "Certificate", "db-autoscaler")
	expectEqual(t, "serving issuer", at(serving, "spec.issuerRef.name"), "db-autoscaler-ca")
	expectEqual(t, "serving secret", at(serving, "spec.secretName"), "db-autoscaler-cert")
	expectEqual(t, "serving duration", at(serving, "spec.duration"), "8760h")
	expectEqual(t, "serving renewBefore", at(serving, "spec.renewBefore"), "720h")
	dns := strs(at(serving, "spec.dnsNames"))
	for _, want := range []string{"db-autoscaler", "db-autoscaler.cozy-db-autoscaler.svc", "db-autoscaler.cozy-db-autoscaler.svc.cluster.local"} {
		if !contains(dns, want) {
			t.Errorf("serving dnsNames %v lack %s", dns, want)
		}
	}

	vwc := only(t, r, "ValidatingWebhookConfiguration", webhookConfigName)
	inject, _ := at(vwc, "metadata.annotations").(map[string]interface{})
	expectEqual(t, "cert-manager CA injection", inject["cert-manager.io/inject-ca-from"], releaseNamespace+"/db-autoscaler")
	d := only(t, r, "Deployment", "db-autoscaler")
	expectEqual(t, "pod mounts the serving secret", at(d, "spec.template.spec.volumes[0].secret.secretName"), at(serving, "spec.secretName"))
}

// The chart's floor is the Kubernetes version its CRD and manifests are tested on (the real
// kube-apiserver of the realkube tests): older versions are refused by kubeVersion, and every
// version it accepts gets trafficDistribution (a field from Kubernetes 1.31).
func TestKubeVersionFloorIsTheTestedVersion(t *testing.T) {
	cases := []struct {
		kube    string
		refused bool
	}{
		{"v1.28.9", true},
		{"v1.33.7", true},
		{"v1.34.0", false},
		{"v1.34.4", false}, // sdk/testing/controlplane
		{"v1.37.0", false}, // Helm's default capabilities
	}
	for _, tc := range cases {
		r, err := helmrender.Render(chartDir(t), helmrender.Options{
			ReleaseName: releaseName, Namespace: releaseNamespace, KubeVersion: tc.kube})
		if tc.refused {
			if err == nil || !strings.Contains(err.Error(), "incompatible") {
				t.Errorf("Kubernetes %s must be refused by the chart's kubeVersion, got %v", tc.kube, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.kube, err)
		}
		expectEqual(t, "trafficDistribution on "+tc.kube, at(only(t, r, "Service", "db-autoscaler"), "spec.trafficDistribution"), "PreferClose")
	}
}

// webhook.clientCA: the CA bundle of the API server's client certificate, from inline PEM (in
// a ConfigMap the chart renders), a ConfigMap or a Secret of yours, is mounted read-only and
// passed as --webhook-client-ca, its allowed names as --webhook-client-names. Unset, no client
// certificate is asked for: no flag, no volume.
func TestWebhookClientCA(t *testing.T) {
	const file = "/etc/db-autoscaler/webhook-client-ca/ca.crt"
	volume := func(t *testing.T, d map[string]interface{}) map[string]interface{} {
		t.Helper()
		for _, v := range at(d, "spec.template.spec.volumes").([]interface{}) {
			if at(v, "name") == "webhook-client-ca" {
				return v.(map[string]interface{})
			}
		}
		return nil
	}
	mounted := func(t *testing.T, d map[string]interface{}) bool {
		t.Helper()
		for _, m := range at(d, "spec.template.spec.containers[0].volumeMounts").([]interface{}) {
			if at(m, "name") == "webhook-client-ca" {
				expectEqual(t, "mount path", at(m, "mountPath"), "/etc/db-autoscaler/webhook-client-ca")
				expectEqual(t, "read-only", at(m, "readOnly"), true)
				return true
			}
		}
		return false
	}

	t.Run("unset", func(t *testing.T) {
		r := renderChart(t, nil)
		d := only(t, r, "Deployment", "db-autoscaler")
		args := operatorArgs(t, r)
		if len(flagValues(args, "--webhook-client-ca")) != 0 || len(flagValues(args, "--webhook-client-names")) != 0 {
			t.Errorf("no client CA configured, yet args %v ask for client certificates", args)
		}
		if volume(t, d) != nil || mounted(t, d) || has(r, "ConfigMap", "db-autoscaler-webhook-client-ca") {
			t.Errorf("no client CA configured, yet its volume or ConfigMap is rendered")
		}
	})

	t.Run("inline PEM", func(t *testing.T) {
		pem := "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----"
		values := inlineValues(t, "webhook:\n  clientCA:\n    pem: |\n      "+strings.ReplaceAll(pem, "\n", "\n      ")+"\n")
		r := renderChart(t, []string{values})
		cm := only(t, r, "ConfigMap", "db-autoscaler-webhook-client-ca")
		expectEqual(t, "bundle in the ConfigMap", strings.TrimSpace(at(cm, "data").(map[string]interface{})["ca.crt"].(string)), pem)
		d := only(t, r, "Deployment", "db-autoscaler")
		expectEqual(t, "volume", volume(t, d)["configMap"], map[string]interface{}{
			"name":  "db-autoscaler-webhook-client-ca",
			"items": []interface{}{map[string]interface{}{"key": "ca.crt", "path": "ca.crt"}},
		})
		if !mounted(t, d) {
			t.Errorf("the client CA volume is not mounted")
		}
		expectEqual(t, "--webhook-client-ca", flagValues(operatorArgs(t, r), "--webhook-client-ca"), []string{file})
		expectEqual(t, "--webhook-client-names", len(flagValues(operatorArgs(t, r), "--webhook-client-names")), 0)
	})

	t.Run("existing ConfigMap", func(t *testing.T) {
		r := renderChart(t, nil, "webhook.clientCA.existingConfigMap=apiserver-ca", "webhook.clientCA.key=bundle.pem")
		d := only(t, r, "Deployment", "db-autoscaler")
		expectEqual(t, "volume", volume(t, d)["configMap"], map[string]interface{}{
			"name":  "apiserver-ca",
			"items": []interface{}{map[string]interface{}{"key": "bundle.pem", "path": "ca.crt"}},
		})
		if has(r, "ConfigMap", "db-autoscaler-webhook-client-ca") {
			t.Errorf("the chart renders its own ConfigMap next to the one named")
		}
		expectEqual(t, "--webhook-client-ca", flagValues(operatorArgs(t, r), "--webhook-client-ca"), []string{file})
	})

	t.Run("existing Secret with allowed names", func(t *testing.T) {
		r := renderChart(t, []string{"webhook-client-ca.yaml"})
		d := only(t, r, "Deployment", "db-autoscaler")
		expectEqual(t, "volume", volume(t, d)["secret"], map[string]interface{}{
			"secretName": "apiserver-ca",
			"items":      []interface{}{map[string]interface{}{"key": "ca.crt", "path": "ca.crt"}},
		})
		if !mounted(t, d) {
			t.Errorf("the client CA volume is not mounted")
		}
		args := operatorArgs(t, r)
		expectEqual(t, "--webhook-client-ca", flagValues(args, "--webhook-client-ca"), []string{file})
		expectEqual(t, "--webhook-client-names", flagValues(args, "--webhook-client-names"),
			[]string{"kube-apiserver,apiserver.example"})
	})

	refusals := []struct {
		name    string
		values  string
		wantErr string
	}{
		{"two sources", "webhook:\n  clientCA:\n    existingSecret: a\n    existingConfigMap: b\n", "set one"},
		{"names without a CA", "webhook:\n  clientCA:\n    allowedNames: [kube-apiserver]\n", "needs a client CA"},
		// The flag takes the names comma-separated.
		{"a name with a comma", "webhook:\n  clientCA:\n    existingSecret: a\n    allowedNames: [\"a,b\"]\n", "allowedNames"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryRender(t, []string{inlineValues(t, tc.values)})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("want an error with %q, got %v", tc.wantErr, err)
			}
		})
	}
}
