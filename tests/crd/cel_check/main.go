// dha-crd-check runs the DHA CRD through the real apiextensions code of kube-apiserver: the
// CRD validation a `kubectl apply` of it meets (structural schema, CEL compilation and the CEL
// cost budget), then the CRD's CEL rules on a table of specs, comparing each verdict with the
// expected one.
//
//	dha-crd-check CRD.yaml CASES.yaml
//
// Exit 0 when the CRD is accepted and every case matches; 1 otherwise, with what differed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

type testCase struct {
	Name string          `json:"name"`
	Spec json.RawMessage `json:"spec"`
	// Want is a substring of the refusal, or empty when the spec must be accepted.
	Want string `json:"want"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: dha-crd-check CRD.yaml CASES.yaml")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "dha-crd-check:", err)
		os.Exit(1)
	}
}

func run(crdPath, casesPath string) error {
	raw, err := os.ReadFile(crdPath)
	if err != nil {
		return err
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &v1); err != nil {
		return fmt.Errorf("%s: %w", crdPath, err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var crd apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		return err
	}
	if errs := validation.ValidateCustomResourceDefinition(context.Background(), &crd); len(errs) > 0 {
		return fmt.Errorf("kube-apiserver would refuse the CRD:\n%s", errs.ToAggregate())
	}
	fmt.Printf("CRD accepted by apiextensions validation (structural schema, CEL compilation, cost budget)\n")

	// The internal form keeps one shared schema in spec.validation.
	props := crd.Spec.Validation
	if props == nil {
		props = crd.Spec.Versions[0].Schema
	}
	structural, err := schema.NewStructural(props.OpenAPIV3Schema)
	if err != nil {
		return err
	}
	validator := cel.NewValidator(structural, true, celconfig.PerCallLimit)

	raw, err = os.ReadFile(casesPath)
	if err != nil {
		return err
	}
	var cases []testCase
	if err := yaml.UnmarshalStrict(raw, &cases); err != nil {
		return fmt.Errorf("%s: %w", casesPath, err)
	}
	failed := 0
	for _, tc := range cases {
		// Decoded as the API server decodes a request body: whole numbers are int64.
		var spec interface{}
		if err := utiljson.Unmarshal(tc.Spec, &spec); err != nil {
			return fmt.Errorf("case %q: %w", tc.Name, err)
		}
		obj := map[string]interface{}{
			"apiVersion": "autoscaling.cozystack.io/v1alpha1",
			"kind":       "DatabaseHorizontalAutoscaler",
			"metadata":   map[string]interface{}{"name": "db", "namespace": "tenant-a"},
			"spec":       spec,
		}
		errs, remaining := validator.Validate(context.Background(), field.NewPath(""), structural, obj, nil, celconfig.RuntimeCELCostBudget)
		got := ""
		if len(errs) > 0 {
			got = errs.ToAggregate().Error()
		}
		ok := (tc.Want == "" && got == "") || (tc.Want != "" && strings.Contains(got, tc.Want))
		verdict := "ok  "
		if !ok {
			verdict = "FAIL"
			failed++
		}
		fmt.Printf("%s %-32s cost %7d  %s\n", verdict, tc.Name, celconfig.RuntimeCELCostBudget-remaining, orAccepted(got))
		if !ok {
			fmt.Printf("     want %q\n", orAccepted(tc.Want))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d cases differ", failed, len(cases))
	}
	fmt.Printf("%d cases as expected\n", len(cases))
	return nil
}

func orAccepted(s string) string {
	if s == "" {
		return "accepted"
	}
	return s
}
