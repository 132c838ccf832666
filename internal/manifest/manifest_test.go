package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func marketplace(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "testdata", "marketplace", name))
	if err != nil {
		t.Fatalf("the marketplace manifests are expected in ../shared beside the repository: %v", err)
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
		{"duplicate key", "apiVersion: v1\nkind: Namespace\nkind: Service\nmetadata:\n  name: a\n", 1, 1, "already defined"},
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

// The Jenkins operator as published has an unclosed quote on line 242: refused, with the
// document and the line, where Kratix would have written it.
func TestParseRealWorldDefect(t *testing.T) {
	_, err := Parse(marketplace(t, "invalid/jenkins-operator-unclosed-quote.yaml"))
	var me *Error
	if !errors.As(err, &me) {
		t.Fatalf("the defective file parsed: %v", err)
	}
	if me.Document != 6 || me.Line != 242 || !strings.Contains(me.Message, "never closed") {
		t.Errorf("error = %v, want document 6, line 242, an unclosed quote", me)
	}
	t.Logf("%v", me)
}

func TestParseMarketplace(t *testing.T) {
	tests := map[string]int{
		"cert-manager.yaml": 46, "tekton.yaml": 75, "jenkins-crd.yaml": 1, "jenkins-operator.yaml": 6, "jenkins-dev-instance.yaml": 1,
	}
	for name, want := range tests {
		docs, err := Parse(marketplace(t, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(docs) != want {
			t.Errorf("%s: %d documents, want %d", name, len(docs), want)
		}
	}
	crd, _ := Parse(marketplace(t, "jenkins-crd.yaml"))
	if !IsCRD(crd[0]) {
		t.Error("jenkins-crd.yaml is not seen as a CRD")
	}
	cm, _ := Parse(marketplace(t, "cert-manager.yaml"))
	crds, others := Split(cm)
	if len(crds) == 0 || len(others) == 0 || len(crds)+len(others) != len(cm) {
		t.Errorf("cert-manager split into %d CRDs and %d others", len(crds), len(others))
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

func BenchmarkCanonicalTekton(b *testing.B) {
	src := marketplace(b, "tekton.yaml")
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		docs, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		_ = Canonical(docs)
	}
}
