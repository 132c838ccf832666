package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
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
