package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
)

// marketplace reads a file of the Kratix Marketplace corpus, an extra set of real-world inputs
// that may sit beside the repository; the test is skipped, saying so, when it does not.
func marketplace(t testing.TB, name string) []byte {
	t.Helper()
	p, err := fixtures.MarketplaceFile(name)
	if errors.Is(err, fixtures.ErrNoMarketplace) {
		t.Skipf("extra corpus not present: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		document int
		line     int
		message  string
	}{
		{"syntax", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: [\n", 2, 7, "invalid YAML"},
		{"a list", "- a\n- b\n", 1, 1, "is a list"},
		{"a scalar", "---\nhello\n", 1, 2, "is a single value"},
		{"missing kind", "apiVersion: v1\nmetadata:\n  name: a\n", 1, 1, "missing kind"},
		{"missing name", "apiVersion: v1\nkind: Namespace\n---\n# c\n---\napiVersion: v1\nkind: Namespace\nmetadata: {}\n", 1, 1, "missing metadata.name"},
		{"second document", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nmetadata:\n  name: b\n", 2, 6, "missing kind"},
		{"duplicate key", "apiVersion: v1\nkind: Namespace\nkind: Service\nmetadata:\n  name: a\n", 1, 3, "already defined at line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("Parse error = %v, want *Error", err)
			}
			if me.Document != tt.document || me.Line != tt.line || !strings.Contains(me.Message, tt.message) {
				t.Errorf("error = %v, want document %d line %d containing %q", me, tt.document, tt.line, tt.message)
			}
		})
	}
}

// TestParseErrorsPointAtTheLineToFix: the YAML parser names the line where the mapping or
// sequence around a mistake began (or counts from zero), one or more lines above the line to fix;
// the error names the line the document stops being YAML at.
func TestParseErrorsPointAtTheLineToFix(t *testing.T) {
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"key indented less than its siblings", head + "data:\n  a: b\n bad: x\n", 7},
		{"a value with a colon and a space", head + "data:\n  a: b\n  c: d: e\n", 7},
		{"a flow sequence never closed", head + "data:\n  a: [b\n  c: d\n", 6},
		{"a tab as indentation", head + "\tdata: 1\n", 5},
		{"a list item inside a mapping", head + "data:\n  a: b\n  - c\n", 7},
		{"a nested key indented less", head + "  labels:\n    a: b\n   c: d\n", 7},
		{"in the second document", head + "---\n" + head + "data:\n  a: b\n bad: x\n", 12},
		{"after a comment and a blank line", head + "# labels\n\ndata:\n  a: b\n bad: x\n", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("Parse error = %v, want *Error", err)
			}
			if me.Line != c.line {
				t.Errorf("error = %v, want line %d", me, c.line)
			}
		})
	}
}

// TestParseUnclosedQuotePointsAtTheQuote: a quote left open is noticed by the YAML parser only
// lines later, where the text stops making sense; the error names the document and the line of
// the quote, which is what the user has to fix, and says where the parser stopped.
func TestParseUnclosedQuotePointsAtTheQuote(t *testing.T) {
	check := func(t *testing.T, src []byte, document, line, foundAt int) {
		t.Helper()
		_, err := Parse(src)
		var me *Error
		if !errors.As(err, &me) {
			t.Fatalf("the defective file parsed: %v", err)
		}
		want := fmt.Sprintf("(found at line %d; the quoted value opened on line %d is never closed)", foundAt, line)
		if me.Document != document || me.Line != line || !strings.HasSuffix(me.Message, want) {
			t.Errorf("error = %v, want document %d, line %d, a message ending %q", me, document, line, want)
		}
	}
	// The operator's Deployment, line 95: `app.kubernetes.io/version: "0.4.2-beta1` (see package
	// fixtures). The quoted value runs on to the next quote, in the container's args on line 111,
	// and the parser gives up after it, at line 112.
	t.Run("fixture", func(t *testing.T) {
		check(t, fixtures.JenkinsOperatorUnclosedQuote(), 6, fixtures.JenkinsOperatorUnclosedQuoteLine, 112)
	})
	// The Marketplace's Jenkins operator, exactly as it was published (its README names line 242).
	t.Run("marketplace", func(t *testing.T) {
		check(t, marketplace(t, "invalid/jenkins-operator-unclosed-quote.yaml"), 6, 242, 288)
	})
}

// TestParseLargeManifests reads releases with many CustomResourceDefinitions and deep schemas,
// counts their documents and tells the CRDs apart.
func TestParseLargeManifests(t *testing.T) {
	tests := []struct {
		name            string
		src             func(t *testing.T) []byte
		documents, crds int
	}{
		{"Pipelines", func(*testing.T) []byte { return fixtures.Pipelines() }, 75, 9},
		{"CertManager", func(*testing.T) []byte { return fixtures.CertManager() }, 46, 6},
		{"JenkinsCRD", func(*testing.T) []byte { return fixtures.JenkinsCRD() }, 1, 1},
		{"JenkinsOperator", func(*testing.T) []byte { return fixtures.JenkinsOperator() }, 6, 0},
		{"JenkinsInstance", func(*testing.T) []byte { return fixtures.JenkinsInstance() }, 1, 0},
		// The extra corpus, when it is beside the repository.
		{"marketplace/tekton.yaml", func(t *testing.T) []byte { return marketplace(t, "tekton.yaml") }, 75, 9},
		{"marketplace/cert-manager.yaml", func(t *testing.T) []byte { return marketplace(t, "cert-manager.yaml") }, 46, 6},
		{"marketplace/jenkins-crd.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-crd.yaml") }, 1, 1},
		{"marketplace/jenkins-operator.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-operator.yaml") }, 6, 0},
		{"marketplace/jenkins-dev-instance.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-dev-instance.yaml") }, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Parse(tt.src(t))
			if err != nil {
				t.Fatal(err)
			}
			crds, others := Split(docs)
			if len(docs) != tt.documents || len(crds) != tt.crds || len(others) != tt.documents-tt.crds {
				t.Errorf("%d documents, %d CRDs and %d others; want %d documents of which %d CRDs", len(docs), len(crds), len(others), tt.documents, tt.crds)
			}
			for i, d := range docs {
				if d.Index != i+1 {
					t.Errorf("document %d has Index %d", i+1, d.Index)
				}
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	base := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  version: \"0.9.0\"\n  port: \"010\"\n"
	same := []string{
		"# a comment\nkind: ConfigMap\napiVersion: v1\ndata: {port: '010', version: '0.9.0'}\nmetadata:\n    namespace: x\n    name: a\n",
		"---\napiVersion: \"v1\"\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\ndata:\n  port: \"010\"\n  version: 0.9.0\n---\n",
	}
	canon := func(s string) []byte {
		docs, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		return Canonical(docs)
	}
	want := canon(base)
	if string(want) != "apiVersion: v1\ndata:\n  port: \"010\"\n  version: 0.9.0\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n" {
		t.Errorf("canonical form = %q", want)
	}
	for _, s := range same {
		if got := canon(s); !bytes.Equal(got, want) {
			t.Errorf("formatting changed the bytes:\n%s\nvs\n%s", got, want)
		}
	}
	if got := canon(strings.Replace(base, "0.9.0", "0.9.1", 1)); bytes.Equal(got, want) {
		t.Error("a value change gave the same bytes")
	}
	two := canon(base + "---\n" + base)
	if string(two) != string(want)+"---\n"+string(want) {
		t.Errorf("two documents = %q", two)
	}
}

// BenchmarkCanonical parses and canonicalises a 1.9 MB release of 75 documents, nearly all of it
// CustomResourceDefinitions.
func BenchmarkCanonical(b *testing.B) {
	src := fixtures.Pipelines()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		docs, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		_ = Canonical(docs)
	}
}

// canonicalOf parses and canonicalises a source, failing the test on a parse error.
func canonicalOf(t *testing.T, src string) string {
	t.Helper()
	docs, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return string(Canonical(docs))
}

// TestCanonicalIssueConfigMap is the case of the issue: a key `n` stays the string "n" (a YAML
// 1.1 reader made it false), and an integer past 2^53 keeps its last digit.
func TestCanonicalIssueConfigMap(t *testing.T) {
	got := canonicalOf(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  n: \"x\"\n  on: off\n  yes: NO\n  big: 9007199254740993\n")
	want := "apiVersion: v1\ndata:\n  big: 9007199254740993\n  \"n\": x\n  \"on\": \"off\"\n  \"yes\": \"NO\"\nkind: ConfigMap\nmetadata:\n  name: settings\n"
	if got != want {
		t.Errorf("canonical form:\n%s\nwant:\n%s", got, want)
	}
}

// TestCanonicalScalars gives, for each way of writing a value, the exact text of the canonical
// form: its type and value kept, written so that YAML 1.1 and 1.2 readers read it alike.
func TestCanonicalScalars(t *testing.T) {
	const head = "apiVersion: example.com/v1\nkind: Edge\nmetadata:\n  name: e\n"
	tests := []struct{ in, want string }{
		// YAML 1.1 booleans are strings in 1.2; they are quoted so that 1.1 readers agree.
		{"n", `"n"`}, {"y", `"y"`}, {"Y", `"Y"`}, {"NO", `"NO"`}, {"on", `"on"`}, {"Off", `"Off"`},
		{"yes", `"yes"`},
		{"True", "true"}, {"FALSE", "false"}, {"true", "true"},
		{"~", "null"}, {"Null", "null"}, {"", "null"}, {"NULL", "null"},
		// Integers: exact at any size, in decimal when the spelling means the same to every reader.
		{"0x1F", "31"}, {"0o17", "15"}, {"+12", "12"}, {"-0", "0"}, {"9007199254740993", "9007199254740993"},
		{"18446744073709551615", "18446744073709551615"}, {"18446744073709551616", "18446744073709551616"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"-123456789012345678901234567890", "-123456789012345678901234567890"},
		{"+123456789012345678901234567890", "123456789012345678901234567890"},
		// Spellings whose value depends on the reader stay as they are.
		{"017", "017"}, {"1_000", "1_000"}, {"0b101", "0b101"}, {"0X1F", "0X1F"},
		// Floats stay floats: the shortest text of the same float64, with a point or an exponent.
		{"1e3", "1000.0"}, {"1.10", "1.1"}, {".5", "0.5"}, {"-0.0", "-0.0"}, {"1e-7", "1e-7"},
		{"6.02e23", "6.02e+23"}, {"1e21", "1e+21"}, {"3.14159265358979323846", "3.141592653589793"},
		{".inf", ".inf"}, {"-.Inf", "-.inf"}, {"+.INF", ".inf"}, {".NaN", ".nan"},
		// Timestamps stay unquoted, as written: kustomize and kubectl read them differently.
		{"2026-01-01", "2026-01-01"}, {"2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
		// Strings that look like something else stay strings, quoted.
		{`"2026-01-01"`, `"2026-01-01"`}, {`'123'`, `"123"`}, {`"0x1F"`, `"0x1F"`}, {`"1e3"`, `"1e3"`},
		{`"017"`, `"017"`}, {`"1_000"`, `"1_000"`}, {`"true"`, `"true"`}, {`"null"`, `"null"`},
		{`"~"`, `"~"`}, {`""`, `""`}, {`"<<"`, `"<<"`}, {`"1:20"`, `"1:20"`}, {`'on'`, `"on"`},
		{"plain text", "plain text"}, {`"a: b"`, `'a: b'`},
		// Explicit tags.
		{"!!str 12", `"12"`}, {`!!int "12"`, "12"}, {"!!float 1", "1.0"}, {"!!binary aGVsbG8=", "hello"},
		{`!!bool "true"`, "true"}, {"!Ref bar", "bar"},
		// Several lines: the literal style.
		{"|\n  one\n  two\n", "|\n  one\n  two\n"}, {"\"one\\ntwo\"", "|-\n  one\n  two"},
		{">\n  folded\n  text\n", "|\n  folded text\n"},
		// A long line is not wrapped.
		{strings.Repeat("word ", 30) + "end", strings.Repeat("word ", 30) + "end"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := canonicalOf(t, head+"v: "+tt.in+"\n")
			want := head + "v: " + tt.want + "\n"
			if strings.HasSuffix(tt.want, "\n") {
				want = head + "v: " + tt.want
			}
			if got != want {
				t.Errorf("v: %s\n got %q\nwant %q", tt.in, strings.TrimPrefix(got, head), strings.TrimPrefix(want, head))
			}
		})
	}
}

// TestCanonicalKeys: keys that YAML 1.1 reads as booleans stay the strings they are; a key YAML
// reads as a number or a boolean becomes its text, as in JSON.
func TestCanonicalKeys(t *testing.T) {
	got := canonicalOf(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\ndata:\n  n: 1\n  Y: 2\n  off: 3\n  True: 4\n  0x1F: 5\n  \"123\": 6\n  \"<<\": 7\n")
	want := "apiVersion: v1\ndata:\n  \"123\": 6\n  \"31\": 5\n  \"<<\": 7\n  \"Y\": 2\n  \"n\": 1\n  \"off\": 3\n  \"true\": 4\nkind: ConfigMap\nmetadata:\n  name: keys\n"
	if got != want {
		t.Errorf("canonical form:\n%s\nwant:\n%s", got, want)
	}
}

// TestCanonicalAnchorsAndMerges: aliases are written out and merge keys applied (own keys win,
// then the earlier merged mapping).
func TestCanonicalAnchorsAndMerges(t *testing.T) {
	src := `apiVersion: example.com/v1
kind: Edge
metadata:
  name: m
spec:
  base: &base {image: nginx, replicas: 1}
  debug: &debug {replicas: 9, debug: on}
  copy: *base
  one: {<<: *base, replicas: 3}
  two:
    replicas: 4
    <<: [*debug, *base]
`
	want := `apiVersion: example.com/v1
kind: Edge
metadata:
  name: m
spec:
  base:
    image: nginx
    replicas: 1
  copy:
    image: nginx
    replicas: 1
  debug:
    debug: "on"
    replicas: 9
  one:
    image: nginx
    replicas: 3
  two:
    debug: "on"
    image: nginx
    replicas: 4
`
	if got := canonicalOf(t, src); got != want {
		t.Errorf("canonical form:\n%s\nwant:\n%s", got, want)
	}
}

// TestCanonicalFormattingIsNoChange: the same meaning written differently gives the same bytes;
// a different meaning gives different bytes.
func TestCanonicalFormattingIsNoChange(t *testing.T) {
	base := `apiVersion: example.com/v1
kind: Edge
metadata:
  name: f
spec:
  flags: [true, false, null]
  mode: "on"
  count: 31
  ratio: 1000.0
  big: 123456789012345678901234567890
  items:
  - name: a
    port: 80
`
	same := []string{
		// Key order, flow style, quoting styles, comments, indentation, spellings of the same value.
		"# comment\nkind: Edge\napiVersion: 'example.com/v1'\nmetadata: {name: \"f\"}\nspec: {flags: [True, FALSE, ~], mode: 'on', count: 0x1F, ratio: 1e3, big: +123456789012345678901234567890, items: [{port: 80, name: a}]}\n",
		"apiVersion: example.com/v1\nkind: Edge\nmetadata:\n    name: f\nspec:\n    items:\n        -   port: 0o120   # octal\n            name: \"a\"\n    big: 123456789012345678901234567890\n    ratio: 1.0e+3\n    count: 31\n    mode: \"on\"\n    flags:\n      - TRUE\n      - False\n      -\n",
		// An anchor that nothing refers to.
		"apiVersion: example.com/v1\nkind: Edge\nmetadata:\n  name: f\nspec:\n  flags: [true, false, null]\n  mode: \"on\"\n  count: 31\n  ratio: 1000.0\n  big: 123456789012345678901234567890\n  items:\n  - &item {name: a, port: 80}\n",
	}
	want := canonicalOf(t, base)
	for i, s := range same {
		if got := canonicalOf(t, s); got != want {
			t.Errorf("spelling %d gives other bytes:\n%s\nwant:\n%s", i+1, got, want)
		}
	}
	// Aliases and merge keys give what they expand to.
	const edge = "apiVersion: example.com/v1\nkind: Edge\nmetadata:\n  name: a\n"
	for _, pair := range [][2]string{
		{"spec: {x: &v on, y: *v, l: &l [1, 2], m: *l}", "spec: {x: 'on', y: 'on', l: [1, 2], m: [1, 2]}"},
		{"spec: {b: &b {p: 1, q: 2}, c: {<<: *b, q: 3}}", "spec: {b: {p: 1, q: 2}, c: {p: 1, q: 3}}"},
	} {
		if a, b := canonicalOf(t, edge+pair[0]+"\n"), canonicalOf(t, edge+pair[1]+"\n"); a != b {
			t.Errorf("%q and %q give different bytes:\n%s\nvs\n%s", pair[0], pair[1], a, b)
		}
	}

	different := [][2]string{
		{"v: 123", `v: "123"`},
		{"v: 2026-01-01", `v: "2026-01-01"`},
		{"v: n", "v: false"},
		{"v: 1.0", "v: 1"},
		{"v: 9007199254740993", "v: 9007199254740992"},
		{"v: 017", "v: 17"},
		{"v: ~", `v: "~"`},
	}
	const head = "apiVersion: example.com/v1\nkind: Edge\nmetadata:\n  name: d\n"
	for _, d := range different {
		if a, b := canonicalOf(t, head+d[0]+"\n"), canonicalOf(t, head+d[1]+"\n"); a == b {
			t.Errorf("%q and %q give the same bytes:\n%s", d[0], d[1], a)
		}
	}
}

// TestParseValueErrors: what YAML allows but a Kubernetes object cannot hold, or what would
// expand without bound, is refused with the line to fix.
func TestParseValueErrors(t *testing.T) {
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	laughs := head + "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'h'; i, prev = i+1, i {
		laughs += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	tests := []struct {
		name, src string
		line      int
		message   string
	}{
		{"merge of a value", head + "data:\n  <<: 5\n", 6, "merge key << takes a mapping"},
		{"merge key twice", head + "data:\n  <<: {a: b}\n  <<: {c: d}\n", 7, "given twice"},
		{"list as a key", head + "data:\n  ? [a, b]\n  : c\n", 6, "mapping key must be a single value"},
		{"alias inside its own anchor", head + "data: &d\n  self: *d\n", 6, "inside its own anchor"},
		{"aliases without bound", laughs, 0, "aliases expand to more than"},
		{"a tag that does not fit", head + "data:\n  a: !!int 1.5\n", 6, "cannot decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("Parse error = %v, want *Error", err)
			}
			if me.Document != 1 || (tt.line != 0 && me.Line != tt.line) || !strings.Contains(me.Message, tt.message) {
				t.Errorf("error = %v, want document 1 line %d containing %q", me, tt.line, tt.message)
			}
		})
	}
}

// TestEncodePiecesJoinLikeCanonical shows that any selection of a stream's pieces, joined, is the
// canonical stream of those documents: what the provider builds its CRD and other files from.
func TestEncodePiecesJoinLikeCanonical(t *testing.T) {
	src := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.example.com}\n---\n" +
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: b, labels: {on: 'yes'}}\n---\n" +
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: c.example.com}\n"
	docs, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	parts := Encode(docs)
	want := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\n---\n" +
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: c.example.com\n"
	if got := string(Join([][]byte{parts[0], parts[2]})); got != want {
		t.Errorf("the CRDs joined:\n%s\nwant:\n%s", got, want)
	}
	if got, whole := Join(parts), Canonical(docs); string(got) != string(whole) {
		t.Errorf("Join(Encode) differs from Canonical:\n%s\n---- canonical:\n%s", got, whole)
	}
	if Join(nil) != nil {
		t.Error("nothing joined should be nil, as Canonical of no documents is")
	}
}

// A long stream is serialised by several workers; each part is still its own document's, in
// the stream's order.
func TestEncodeLongStreamKeepsOrder(t *testing.T) {
	var src strings.Builder
	for i := range 203 {
		fmt.Fprintf(&src, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%03d\ndata:\n  i: %q\n", i, fmt.Sprint(i))
	}
	docs, err := Parse([]byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	parts := Encode(docs)
	if len(parts) != 203 {
		t.Fatalf("%d parts, want 203", len(parts))
	}
	for i, p := range parts {
		want := fmt.Sprintf("apiVersion: v1\ndata:\n  i: \"%d\"\nkind: ConfigMap\nmetadata:\n  name: cm-%03d\n", i, i)
		if string(p) != want {
			t.Fatalf("part %d is\n%s\nwant\n%s", i, p, want)
		}
	}
}

// A long stream is parsed in pieces (parseSplit). Whatever the stream, Parse answers as the
// one-piece parser does: the same documents, numbers and lines, or the same error. The streams
// include what could make a piece differ from the stream: a quoted value, a flow list or a block
// value across a "---" line, an alias to an anchor of another document, directives, "..."
// markers, comments and empty documents, CRLF line breaks.
func TestParseInPiecesAgreesWithTheStream(t *testing.T) {
	filler := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler-%04d\ndata:\n  text: %q\n", i, strings.Repeat("x", 200))
		}
		return b.String()
	}
	long := filler(1200) // well over splitMin
	if len(long) < 2*splitMin {
		t.Fatalf("the filler is %d bytes, too short to be split", len(long))
	}
	streams := map[string][]byte{
		"pipelines":           fixtures.Pipelines(),
		"cert-manager":        fixtures.CertManager(),
		"jenkins":             fixtures.JenkinsOperator(),
		"unclosed quote":      fixtures.JenkinsOperatorUnclosedQuote(),
		"filler":              []byte(long),
		"quoted across":       []byte(long + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\ndata:\n  a: \"one\n---\ntwo\"\n" + long),
		"flow across":         []byte(long + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\ndata: [1,\n---\n2]\n" + long),
		"block across":        []byte(long + "--- |\n  text\n---\nmore\n" + long),
		"alias across":        []byte("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: &shared\n  k: v\n" + long + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata: *shared\n"),
		"directive":           []byte(long + "%YAML 1.2\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n" + long),
		"end marker":          []byte(long + "...\n" + long),
		"comments and empty":  []byte(long + "---\n# only a comment\n---\n---\n" + long + "--- # a comment on the marker\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
		"crlf":                []byte(strings.ReplaceAll(long, "\n", "\r\n")),
		"not an object":       []byte(long + "---\n- a list\n" + long),
		"marker-like content": []byte(long + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  a: |\n    ---\n    ...\n    %YAML\n" + long),
	}
	split := 0
	for name, src := range streams {
		t.Run(name, func(t *testing.T) {
			want, wantErr := parseStream(src)
			got, gotErr := Parse(src)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("Parse: error %v, the stream's %v", gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("Parse: %d documents, the stream's %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("document %d: %+v\nthe stream's %+v", i+1, got[i], want[i])
				}
			}
			if _, ok := parseSplit(src); ok {
				split++
			}
		})
	}
	// The comparisons mean something only if the long streams were parsed in pieces.
	if runtime.GOMAXPROCS(0) > 1 && split < 5 {
		t.Errorf("only %d streams were parsed in pieces", split)
	}
}
