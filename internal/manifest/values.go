package manifest

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	yaml3 "go.yaml.in/yaml/v3"
)

// How values are read.
//
// kustomize (kyaml) parses manifests with go.yaml.in/yaml/v3, expands anchors, applies merge keys
// and reads each scalar with that parser's YAML 1.2 rules: only true/false (and True, TRUE,
// False, FALSE) are booleans, so `n`, `y`, `on`, `off`, `yes` and `no` are strings; ~, null and
// an empty value are null; numbers are integers or floats. The converter below reads values the
// same way, from the parser's nodes, and keeps every scalar's type and value:
//
//   - An integer in a YAML 1.2 core spelling (decimal, 0x…, 0o…) is kept exactly, at any size, and
//     written in decimal. go.yaml.in/yaml/v3 itself would read a decimal integer beyond 64 bits as
//     a float and lose digits; the canonical form does not.
//   - A float is kept as its float64 value and written so that it reads back as a float (1e3 is
//     written 1000.0, not 1000).
//   - A number in a spelling whose value depends on the reader (017 is 15 to kustomize and
//     kubectl, 17 to a strict YAML 1.2 reader; 1_000 and 0b101 are numbers only to some readers)
//     and a timestamp (kustomize turns 2026-01-01 into "2026-01-01T00:00:00Z", kubectl keeps
//     "2026-01-01") are written exactly as they were, unquoted, so that every reader reads the
//     canonical form as it reads the input.
//   - Everything else that is a string stays a string and is quoted when written if any YAML
//     reader, 1.1 or 1.2, could take it for something else.

// Scalar is a number or a timestamp in Document.Object, held as its canonical text so that
// integers of any size stay exact and floats stay floats. It is written unquoted.
type Scalar struct {
	Tag  string // "!!int", "!!float" or "!!timestamp"
	Text string // as written in the canonical form
}

// maxExpanded bounds the values that aliases may produce in one document, so that a few lines of
// nested aliases ("billion laughs") cannot exhaust memory.
const maxExpanded = 1_000_000

var (
	coreDecimal = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
	coreHex     = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	coreOctal   = regexp.MustCompile(`^0o[0-7]+$`)
	coreFloat   = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	coreInf     = regexp.MustCompile(`^[-+]?\.(inf|Inf|INF)$`)
	coreNaN     = regexp.MustCompile(`^\.(nan|NaN|NAN)$`)
	digits      = regexp.MustCompile(`^[-+]?[0-9]+$`)
	// YAML 1.1 sexagesimal numbers (1:20), which 1.1 readers such as kubectl's still know.
	base60 = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)
)

type convertError struct {
	line int
	msg  string
}

func (e *convertError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func errAt(n *yaml3.Node, format string, args ...any) error {
	return &convertError{line: n.Line, msg: fmt.Sprintf(format, args...)}
}

// converter turns one document's nodes into Go values: map[string]any, []any, string, bool, nil
// and Scalar.
type converter struct {
	active   map[*yaml3.Node]bool // anchors being expanded, to refuse an alias inside its own anchor
	expanded int                  // values produced through aliases
	inAlias  int                  // depth of alias expansion
}

func (c *converter) value(n *yaml3.Node) (any, error) {
	if c.inAlias > 0 {
		c.expanded++
		if c.expanded > maxExpanded {
			return nil, errAt(n, "aliases expand to more than %d values; write the values out instead", maxExpanded)
		}
	}
	switch n.Kind {
	case yaml3.AliasNode:
		return c.alias(n)
	case yaml3.ScalarNode:
		return scalar(n)
	case yaml3.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml3.MappingNode:
		return c.mapping(n)
	default:
		return nil, errAt(n, "unexpected YAML node")
	}
}

func (c *converter) alias(n *yaml3.Node) (any, error) {
	target := n.Alias
	if target == nil {
		return nil, errAt(n, "alias *%s has no anchor", n.Value)
	}
	if c.active[target] {
		return nil, errAt(n, "alias *%s is inside its own anchor", n.Value)
	}
	c.active[target] = true
	c.inAlias++
	v, err := c.value(target)
	c.inAlias--
	delete(c.active, target)
	return v, err
}

func (c *converter) mapping(n *yaml3.Node) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	lines := make(map[string]int, len(n.Content)/2)
	var merge *yaml3.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml3.ScalarNode && k.ShortTag() == "!!merge" {
			if merge != nil {
				return nil, errAt(k, "the merge key << is given twice in one mapping; give it once, with a list of mappings")
			}
			merge = v
			continue
		}
		key, err := c.key(k)
		if err != nil {
			return nil, err
		}
		if first, dup := lines[key]; dup {
			return nil, errAt(k, "mapping key %q already defined at line %d; give each key once", key, first)
		}
		lines[key] = k.Line
		val, err := c.value(v)
		if err != nil {
			return nil, err
		}
		out[key] = val
	}
	if merge != nil {
		// As in kustomize and in the YAML merge key rules: the mapping's own keys win over merged
		// ones, and among the merged mappings the earlier one wins.
		sources, err := mergeSources(merge)
		if err != nil {
			return nil, err
		}
		for _, s := range sources {
			v, err := c.value(s)
			if err != nil {
				return nil, err
			}
			m, _ := v.(map[string]any)
			for key, val := range m {
				if _, ok := out[key]; !ok {
					out[key] = val
				}
			}
		}
	}
	return out, nil
}

// mergeSources lists the mappings a merge key names: one mapping, or a list of them, each given
// in place or through an alias.
func mergeSources(n *yaml3.Node) ([]*yaml3.Node, error) {
	isMap := func(m *yaml3.Node) bool {
		return m.Kind == yaml3.MappingNode || (m.Kind == yaml3.AliasNode && m.Alias != nil && m.Alias.Kind == yaml3.MappingNode)
	}
	if isMap(n) {
		return []*yaml3.Node{n}, nil
	}
	list := n
	if n.Kind == yaml3.AliasNode && n.Alias != nil {
		list = n.Alias
	}
	if list.Kind == yaml3.SequenceNode {
		for _, item := range list.Content {
			if !isMap(item) {
				return nil, errAt(item, "the merge key << takes a mapping or a list of mappings; this item is not a mapping")
			}
		}
		return list.Content, nil
	}
	return nil, errAt(n, "the merge key << takes a mapping or a list of mappings")
}

// key reads a mapping key. Kubernetes objects are JSON, whose keys are strings: a key that YAML
// reads as a number, a boolean or null becomes the text of that value, as kubectl makes it.
func (c *converter) key(k *yaml3.Node) (string, error) {
	if k.Kind == yaml3.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml3.ScalarNode {
		return "", errAt(k, "a mapping key must be a single value, not a list or a mapping")
	}
	v, err := scalar(k)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case nil:
		return "null", nil
	case Scalar:
		return v.Text, nil
	}
	return k.Value, nil
}

// scalar reads one scalar the way go.yaml.in/yaml/v3 (and so kustomize) does, keeping numbers
// exact and spellings whose meaning depends on the reader as they are.
func scalar(n *yaml3.Node) (any, error) {
	tag := n.ShortTag()
	if n.Style&yaml3.TaggedStyle != 0 {
		return taggedScalar(n, tag)
	}
	switch tag {
	case "!!str":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		return strings.EqualFold(n.Value, "true"), nil
	case "!!int":
		return intScalar(n.Value), nil
	case "!!float":
		return floatScalar(n.Value), nil
	case "!!timestamp":
		return Scalar{Tag: "!!timestamp", Text: n.Value}, nil
	case "!!merge":
		return n.Value, nil // "<<" given as a value, not as a key
	}
	return n.Value, nil
}

// taggedScalar reads a scalar with an explicit tag (`!!int "12"`, `!!str 12`, `!!binary …`), with
// the YAML library's own checks of whether the text fits the tag.
func taggedScalar(n *yaml3.Node, tag string) (any, error) {
	switch tag {
	case "!!str":
		return n.Value, nil
	case "!!null", "!!bool", "!!int", "!!float", "!!timestamp", "!!binary":
	default:
		return n.Value, nil // an application tag (!Ref, !foo): kustomize keeps the text
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, errAt(n, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case int:
		return Scalar{Tag: "!!int", Text: strconv.Itoa(v)}, nil
	case int64:
		return Scalar{Tag: "!!int", Text: strconv.FormatInt(v, 10)}, nil
	case uint64:
		return Scalar{Tag: "!!int", Text: strconv.FormatUint(v, 10)}, nil
	case float64:
		return Scalar{Tag: "!!float", Text: floatText(v)}, nil
	case time.Time:
		return Scalar{Tag: "!!timestamp", Text: n.Value}, nil
	}
	return nil, errAt(n, "cannot read the value %q tagged %s", n.Value, tag)
}

func intScalar(text string) Scalar {
	var i big.Int
	switch {
	case coreDecimal.MatchString(text):
		i.SetString(strings.TrimPrefix(text, "+"), 10)
	case coreHex.MatchString(text):
		i.SetString(text[2:], 16)
	case coreOctal.MatchString(text):
		i.SetString(text[2:], 8)
	default:
		return Scalar{Tag: "!!int", Text: text} // 017, 1_000, 0b101, 0X1F: kept as written
	}
	return Scalar{Tag: "!!int", Text: i.String()}
}

func floatScalar(text string) Scalar {
	switch {
	case coreDecimal.MatchString(text):
		// A decimal integer too large for 64 bits, which the YAML library calls a float.
		var i big.Int
		i.SetString(strings.TrimPrefix(text, "+"), 10)
		return Scalar{Tag: "!!int", Text: i.String()}
	case digits.MatchString(text):
		return Scalar{Tag: "!!int", Text: text} // a large integer with leading zeros: as written
	case coreInf.MatchString(text) && strings.HasPrefix(text, "-"):
		return Scalar{Tag: "!!float", Text: "-.inf"}
	case coreInf.MatchString(text):
		return Scalar{Tag: "!!float", Text: ".inf"}
	case coreNaN.MatchString(text):
		return Scalar{Tag: "!!float", Text: ".nan"}
	case coreFloat.MatchString(text):
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return Scalar{Tag: "!!float", Text: floatText(f)}
		}
	}
	return Scalar{Tag: "!!float", Text: text}
}

// floatText writes a float64 as the shortest text that reads back as the same float: with a
// decimal point or an exponent, so that no reader takes it for an integer.
func floatText(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	case math.IsNaN(f):
		return ".nan"
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if format == 'e' {
		// 1e-07 reads better as 1e-7.
		if n := len(s); n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
			s = s[:n-2] + s[n-1:]
		}
		return s
	}
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// node builds the canonical node tree of a value made by the converter.
func node(v any) *yaml3.Node {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := &yaml3.Node{Kind: yaml3.MappingNode, Tag: "!!map", Content: make([]*yaml3.Node, 0, 2*len(keys))}
		for _, k := range keys {
			n.Content = append(n.Content, stringNode(k), node(v[k]))
		}
		return n
	case []any:
		n := &yaml3.Node{Kind: yaml3.SequenceNode, Tag: "!!seq", Content: make([]*yaml3.Node, 0, len(v))}
		for _, item := range v {
			n.Content = append(n.Content, node(item))
		}
		return n
	case string:
		return stringNode(v)
	case bool:
		return &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case nil:
		return &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!null", Value: "null"}
	case Scalar:
		// Untagged and plain: the text reads back as what it is.
		return &yaml3.Node{Kind: yaml3.ScalarNode, Value: v.Text}
	}
	panic(fmt.Sprintf("manifest: unexpected value %T", v))
}

// stringNode writes a string plain when every YAML reader reads it back as that string, and
// quoted otherwise. The YAML library quotes what YAML 1.2 would read as something else and picks
// the literal style for several lines; quoting is forced here for what a YAML 1.1 reader would
// read as a boolean or a number, and for "<<", which the library would leave plain and so turn
// into a merge key.
func stringNode(s string) *yaml3.Node {
	n := &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!str", Value: s}
	if !strings.Contains(s, "\n") && (s == "<<" || yaml11NonString(s)) {
		n.Style = yaml3.DoubleQuotedStyle
	}
	return n
}

func yaml11NonString(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"on", "On", "ON", "off", "Off", "OFF":
		return true
	}
	return base60.MatchString(s)
}
