package helmrender

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"
)

// Values is the tree templates see as .Values.
type Values = map[string]interface{}

// loadValuesFile parses one YAML values file. Like Helm, the result goes through JSON so numbers
// are float64 and templates, toYaml and the schema see exactly what `helm template` would.
func loadValuesFile(path string) (Values, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseValues(raw, path)
}

func parseValues(raw []byte, origin string) (Values, error) {
	var parsed interface{}
	if err := yaml.Unmarshal(raw, &parsed); err != nil {
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	if parsed == nil {
		return Values{}, nil
	}
	normal, err := viaJSON(parsed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	m, ok := normal.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: values must be a mapping, got %T", origin, normal)
	}
	return m, nil
}

func viaJSON(v interface{}) (interface{}, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out interface{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeValues overlays src onto dst with Helm's rules: maps merge key by key, anything else is
// replaced, and an explicit null deletes the key.
func mergeValues(dst, src Values) Values {
	for k, sv := range src {
		if sv == nil {
			delete(dst, k)
			continue
		}
		sm, sIsMap := sv.(map[string]interface{})
		dm, dIsMap := dst[k].(map[string]interface{})
		if sIsMap && dIsMap {
			dst[k] = mergeValues(dm, sm)
			continue
		}
		dst[k] = sv
	}
	return dst
}

// applySet applies one --set style assignment "a.b[0].c=value". Keys may escape dots as "\."
// (label keys such as rbac.cozystack.io/aggregate-to-tenant-view). Scalars are typed as Helm's
// strvals types them: true/false, null, integers; everything else stays a string.
func applySet(values Values, assignment string) error {
	eq := strings.Index(assignment, "=")
	if eq <= 0 {
		return fmt.Errorf("--set %q: want key=value", assignment)
	}
	path, err := splitKeyPath(assignment[:eq])
	if err != nil {
		return fmt.Errorf("--set %q: %w", assignment, err)
	}
	return setPath(values, path, typedScalar(assignment[eq+1:]))
}

type pathStep struct {
	key   string
	index int // -1 when the step is a map key
}

func splitKeyPath(key string) ([]pathStep, error) {
	var steps []pathStep
	var cur strings.Builder
	flush := func() error {
		if cur.Len() == 0 {
			return fmt.Errorf("empty key segment in %q", key)
		}
		steps = append(steps, pathStep{key: cur.String(), index: -1})
		cur.Reset()
		return nil
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '\\' && i+1 < len(key) && key[i+1] == '.':
			cur.WriteByte('.')
			i++
		case c == '.':
			if cur.Len() == 0 && len(steps) > 0 && steps[len(steps)-1].index >= 0 {
				continue // "a[0].b": the dot after an index
			}
			if err := flush(); err != nil {
				return nil, err
			}
		case c == '[':
			end := strings.IndexByte(key[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", key)
			}
			n, err := strconv.Atoi(key[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad index %q in %q", key[i+1:i+end], key)
			}
			if cur.Len() > 0 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			steps = append(steps, pathStep{index: n})
			i += end
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if len(steps) == 0 || steps[0].index >= 0 {
		return nil, fmt.Errorf("key %q must start with a name", key)
	}
	return steps, nil
}

func setPath(node interface{}, path []pathStep, value interface{}) error {
	step := path[0]
	last := len(path) == 1
	if step.index < 0 {
		m, ok := node.(map[string]interface{})
		if !ok {
			return fmt.Errorf("%q: parent is not a mapping", step.key)
		}
		if last {
			m[step.key] = value
			return nil
		}
		child, exists := m[step.key]
		if !exists || child == nil {
			child = emptyFor(path[1])
			m[step.key] = child
		}
		if path[1].index >= 0 {
			list, _ := child.([]interface{})
			grown := growList(list, path[1].index)
			m[step.key] = grown
			return setInList(grown, path[1:], value)
		}
		return setPath(child, path[1:], value)
	}
	return fmt.Errorf("index [%d] without a list name", step.index)
}

func setInList(list []interface{}, path []pathStep, value interface{}) error {
	i := path[0].index
	if len(path) == 1 {
		list[i] = value
		return nil
	}
	if list[i] == nil {
		list[i] = emptyFor(path[1])
	}
	if path[1].index >= 0 {
		return fmt.Errorf("nested list indexes are not supported")
	}
	return setPath(list[i], path[1:], value)
}

func emptyFor(next pathStep) interface{} {
	if next.index >= 0 {
		return []interface{}{}
	}
	return map[string]interface{}{}
}

func growList(list []interface{}, index int) []interface{} {
	for len(list) <= index {
		list = append(list, nil)
	}
	return list
}

func typedScalar(s string) interface{} {
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && !strings.HasPrefix(s, "0") || s == "0" {
		return float64(n)
	}
	return s
}

// validateValues checks the merged values against the chart's values.schema.json, as Helm does
// before rendering. Every violation is listed so one run shows all of them.
func validateValues(schemaPath string, values Values) error {
	schema, err := os.ReadFile(schemaPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	doc, err := json.Marshal(values)
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return fmt.Errorf("values.schema.json: %w", err)
	}
	if result.Valid() {
		return nil
	}
	var msgs []string
	for _, e := range result.Errors() {
		msgs = append(msgs, "- "+e.String())
	}
	return fmt.Errorf("values don't meet the specifications of the schema:\n%s", strings.Join(msgs, "\n"))
}
