package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
)

// TestEmitMatchesLibrary: the canonical writer gives the YAML library's bytes, or gives up, on
// every document of the fixtures (and of the Marketplace corpus when it is beside the
// repository) and on random documents of awkward strings; it writes most of them itself, so the
// comparison is not made on nothing.
func TestEmitMatchesLibrary(t *testing.T) {
	sources := map[string][]byte{
		"pipelines": fixtures.Pipelines(), "cert-manager": fixtures.CertManager(), "jenkins-crd": fixtures.JenkinsCRD(),
		"jenkins-operator": fixtures.JenkinsOperator(), "jenkins-instance": fixtures.JenkinsInstance(),
	}
	for _, name := range []string{"tekton.yaml", "cert-manager.yaml", "jenkins-crd.yaml", "jenkins-operator.yaml", "jenkins-promise.yaml", "jenkins-dev-instance.yaml"} {
		p, err := fixtures.MarketplaceFile(name)
		if errors.Is(err, fixtures.ErrNoMarketplace) {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources["marketplace/"+name] = src
	}
	for name, src := range sources {
		docs, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		written := 0
		for _, d := range docs {
			if compareWithLibrary(t, name, d) {
				written++
			}
		}
		// The fixtures are CRDs, Deployments and the like: the writer must take nearly all.
		if written*10 < len(docs)*9 {
			t.Errorf("%s: the writer wrote %d of %d documents itself", name, written, len(docs))
		}
	}

	r := rand.New(rand.NewPCG(1, 2))
	written, n := 0, 3000
	for i := range n {
		d := Document{Index: i + 1, Object: randomMapping(r, 3)}
		if compareWithLibrary(t, fmt.Sprintf("random document %d", i), d) {
			written++
		}
	}
	if written*3 < n {
		t.Errorf("the writer wrote %d of %d random documents itself", written, n)
	}
	t.Logf("random documents written by the writer: %d of %d", written, n)
}

// compareWithLibrary reports whether the writer wrote d, failing the test when its bytes are not
// the library's.
func compareWithLibrary(t *testing.T, name string, d Document) bool {
	t.Helper()
	got, ok := emitDocument(d)
	if !ok {
		return false
	}
	if want := encodeLibrary(d); !bytes.Equal(got, want) {
		t.Errorf("%s, document %d: the writer wrote\n%s\nthe library\n%s", name, d.Index, got, want)
	}
	return true
}

// awkward are strings at the edges of the library's rules: indicators, quotes, spaces and
// breaks at either end, texts that read as other types in YAML 1.1 or 1.2, characters it
// escapes, keys over its limit.
var awkward = []string{
	"", " ", "a", "a b", " lead", "trail ", "a: b", "a:b", "a:", "a #b", "a#b", "#x", "- x", "-x", "--x", "-", "---", "--- x", "...x", "..",
	"? x", "?x", ":x", ": x", "'q'", `"q"`, "it's", `back\slash`, `say "hi"`, "tab\there", "multi\nline", "multi\nline\n", "\nlead", " \nx",
	"x \ny", "x\n y", "x\n\n", "\n", "trail\n ", "a\n\nb\n", "  two\nlines\n", "true", "True", "TRUE", "false", "yes", "no", "on", "Off", "y", "n", "null", "Null", "~",
	"1", "01", "1.5", "-1", "+1", "0x1F", "0o17", "0b101", "-0b1", "1_000", "1e3", "1.0e+3", ".5", ".", ".inf", "-.Inf", "+.inf", ".nan", "2001-12-14",
	"2001-12-14T21:59:43.10-05:00", "2001-12-14 21:59:43", "1:20", "12:30:45", "190:20:30", "<<", "@at", "%p", "`b", "!bang", "&amp", "*star", "|pipe",
	">gt", "[x", "{x", ",x", "x,y", "x[y]", "x{y}", "x?y", "é", "unicode é", "— dash", "emoji 😀", "nbsp\u00a0x", "\u00a0", "ctrl\x01", "cr\r\nlf",
	"ls\u2028x", "bom\ufeff", "v1", "v1beta1", "apps/v1", "http://x.example/a?b=c#d", "${VAR}", "{{ .Values.x }}", "=", "a=b", "x: y\nz: w",
	strings.Repeat("k", 128), strings.Repeat("k", 129), strings.Repeat("long value ", 40),
}

func randomString(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return awkward[r.IntN(len(awkward))] + awkward[r.IntN(len(awkward))]
	}
	return awkward[r.IntN(len(awkward))]
}

func randomMapping(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range r.IntN(5) {
		m[randomString(r)] = randomValue(r, depth-1)
	}
	return m
}

func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth <= 0 {
		k = 4 + r.IntN(6)
	}
	switch k {
	case 0, 1:
		return randomMapping(r, depth)
	case 2, 3:
		s := make([]any, r.IntN(4))
		for i := range s {
			s[i] = randomValue(r, depth-1)
		}
		return s
	case 4:
		return r.IntN(2) == 0
	case 5:
		return nil
	case 6:
		return Scalar{Text: []string{"42", "-1.5e+3", "0", "2001-12-14", "9007199254740993", ".inf"}[r.IntN(6)]}
	default:
		return randomString(r)
	}
}
