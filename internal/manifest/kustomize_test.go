package manifest

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizeBuild builds, with kustomize's own library and an in-memory file system, a folder
// holding the given files and a kustomization.yaml that lists them. kustomize reads the files
// with its YAML 1.2 parser, expands anchors and merge keys and prints the objects through JSON,
// so its output is the meaning of the files, independent of how they are formatted.
func kustomizeBuild(t *testing.T, files map[string][]byte) ([]byte, error) {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	names := make([]string, 0, len(files))
	for name, content := range files {
		if err := fs.WriteFile("/folder/"+name, content); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	kustomization := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
	for _, name := range names {
		kustomization += "- " + name + "\n"
	}
	if err := fs.WriteFile("/folder/kustomization.yaml", []byte(kustomization)); err != nil {
		t.Fatal(err)
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/folder")
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}

// checkSameBuild builds the input as it is and the canonical form as the provider writes it, and
// compares the builds byte for byte. The canonical form is built twice: all documents in one file,
// which must build exactly as the input does, and the splitByKind files (CRDs apart from the
// others), which kustomize emits file by file, so their build is compared as a set of objects.
// When kustomize refuses the input (.inf cannot be JSON), it must refuse the canonical form too.
func checkSameBuild(t *testing.T, src []byte) {
	t.Helper()
	docs, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want, wantErr := kustomizeBuild(t, map[string][]byte{"input.yaml": src})
	crds, others := Split(docs)
	split := map[string][]byte{}
	if len(crds) > 0 {
		split["crds.yaml"] = Canonical(crds)
	}
	if len(others) > 0 {
		split["others.yaml"] = Canonical(others)
	}
	for _, c := range []struct {
		what    string
		files   map[string][]byte
		ordered bool
	}{
		{"one file", map[string][]byte{"dependencies.yaml": Canonical(docs)}, true},
		{"split by kind", split, false},
	} {
		got, gotErr := kustomizeBuild(t, c.files)
		switch {
		case wantErr != nil && gotErr == nil:
			t.Errorf("%s: kustomize refuses the input (%v) but builds the canonical form", c.what, wantErr)
		case wantErr == nil && gotErr != nil:
			t.Errorf("%s: kustomize builds the input but refuses the canonical form: %v\ncanonical form:\n%s", c.what, gotErr, Canonical(docs))
		case wantErr == nil:
			w, g := want, got
			if !c.ordered {
				w, g = sortedObjects(want), sortedObjects(got)
			}
			if !bytes.Equal(g, w) {
				t.Errorf("%s: kustomize builds something else from the canonical form\n%s\ncanonical form:\n%s", c.what, firstDifference(w, g), truncate(Canonical(docs)))
			}
		}
	}
}

// sortedObjects puts the objects of a kustomize build in the order of their text.
func sortedObjects(build []byte) []byte {
	objects := strings.Split(string(build), "\n---\n")
	sort.Strings(objects)
	return []byte(strings.Join(objects, "\n---\n"))
}

func truncate(b []byte) []byte {
	if len(b) > 4000 {
		return append(b[:4000:4000], "\n[…]"...)
	}
	return b
}

func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "first difference, line " + strconv.Itoa(i+1) + ":\n  input builds:     " + al[i] + "\n  canonical builds: " + bl[i]
		}
	}
	return "one build is longer than the other"
}

const edgeMeta = "apiVersion: example.com/v1\nkind: Edge\nmetadata:\n  name: "

// kustomizeCorpus holds inputs whose values YAML 1.1 and YAML 1.2 readers disagree on, or that a
// careless normaliser changes: each must mean the same to kustomize before and after
// canonicalisation.
var kustomizeCorpus = []struct{ name, src string }{
	{"the issue's ConfigMap", `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  n: "x"
  big: 9007199254740993
`},
	{"YAML 1.1 booleans as keys and values", edgeMeta + `booleans
spec:
  n: y
  y: n
  Y: N
  on: off
  On: OFF
  yes: no
  Yes: NO
  off: on
  no: yes
  NO: Yes
  list: [y, Y, n, N, yes, Yes, YES, no, No, NO, on, On, ON, off, Off, OFF]
  real: [true, True, TRUE, false, False, FALSE]
`},
	{"nulls", edgeMeta + `nulls
spec:
  tilde: ~
  word: null
  Word: Null
  WORD: NULL
  empty:
  list: [~, null, ]
  strings: ["~", "null", ""]
`},
	{"integers", edgeMeta + `integers
spec:
  hex: 0x1F
  octal12: 0o17
  octal11: 017
  underscores: 1_000
  binary: 0b101
  plus: +12
  negativeZero: -0
  zero: 0
  double: 00
  jsonLimit: 9007199254740993
  int64Max: 9223372036854775807
  int64Min: -9223372036854775808
  uint64Max: 18446744073709551615
  pastUint64: 18446744073709551616
  belowInt64: -9223372036854775809
  huge: 123456789012345678901234567890
  hugeNegative: -123456789012345678901234567890
  hugeLeadingZero: 0123456789012345678901234567890
  hugeHex: 0x123456789012345678901234567890
  list: [0x1F, 0o17, 017, 1_000, 9007199254740993, 123456789012345678901234567890]
`},
	{"floats", edgeMeta + `floats
spec:
  exponent: 1e3
  upperExponent: 1E3
  signedExponent: 1.0e+3
  trailingZero: 1.10
  leadingDot: .5
  negativeDot: -.5
  plus: +1.5
  pi: 3.14159265358979323846264338
  negativeZero: -0.0
  small: 1e-7
  large: 1e21
  avogadro: 6.02e23
  underscores: 1_000.5
  list: [1e3, 1.10, .5, -0.0]
`},
	{"timestamps", edgeMeta + `timestamps
spec:
  date: 2026-01-01
  quotedDate: "2026-01-01"
  dateTime: 2026-01-01T10:00:00Z
  spaced: 2026-01-01 10:00:00
  offset: 2001-12-14t21:59:43.10-05:00
  shortDate: 2026-1-1
  list: [2026-01-01, "2026-01-01"]
`},
	{"strings that look like other things", edgeMeta + `lookalikes
spec:
  number: "123"
  hex: '0x1F'
  octal: "017"
  underscores: "1_000"
  float: "1e3"
  bool: "true"
  oldBool: 'yes'
  nullWord: "null"
  tilde: "~"
  empty: ""
  date: '2026-01-01'
  inf: "-.inf"
  merge: "<<"
  sexagesimal: "1:20"
  colon: "a: b"
  hash: "a #b"
  dash: "- c"
  star: "*d"
  spaces: "  padded  "
  unicode: "héllo ✓"
`},
	{"explicit tags", edgeMeta + `tags
spec:
  str: !!str 12
  strBool: !!str true
  int: !!int "12"
  float: !!float 1
  floatText: !!float "2.50"
  binary: !!binary aGVsbG8=
  nothing: !!null ""
  bool: !!bool "true"
  date: !!timestamp 2026-01-01
  application: !Ref bar
`},
	{"anchors and aliases", edgeMeta + `anchors
spec:
  template: &template
    image: nginx:1.27
    ports: &ports [80, 443]
    enabled: &no no
  first: *template
  second:
    ports: *ports
    enabled: *no
  scalars: [&one 1, *one, &s "x", *s]
`},
	{"merge keys", edgeMeta + `merges
spec:
  base: &base {image: nginx, replicas: 1, tier: web}
  extra: &extra {replicas: 5, debug: on}
  one:
    <<: *base
    replicas: 3
  ownKeyFirst:
    replicas: 4
    <<: *base
  list:
    <<: [*extra, *base]
  inline:
    <<: {a: 1, b: 2}
    b: 3
  nested:
    <<: [{a: first}, {a: second, c: third}]
  quotedKey:
    "<<": not a merge
`},
	{"multi-line strings", edgeMeta + `multiline
spec:
  literal: |
    line one
      indented line
    line three
  strip: |-
    no trailing newline
  keep: |+
    trailing newlines kept

  folded: >
    folded text
    on two lines

    and a paragraph
  foldedStrip: >-
    folded
    stripped
  plain: a plain scalar
    over two lines
  quoted: "first\nsecond\ttab"
  singleQuoted: 'it''s
    folded'
  trailingSpace: "line \nnext"
  long: "aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk lll mmm nnn ooo ppp qqq rrr sss ttt uuu vvv www xxx yyy zzz"
`},
	{"empty documents and comments", `# a leading comment
---
---
apiVersion: v1
kind: Namespace
metadata:
  name: first # a line comment
---
# only a comment
---

---
apiVersion: v1
kind: Namespace
metadata: {name: second}
...
`},
	{"flow and block styles", edgeMeta + `styles
spec: {a: [1, {b: on}], c: {d: [y, n]}, e: [], f: {}}
list:
- name: one
  values: [off, "on"]
-   name: two
    values:
      - 0x10
      - 1e3
`},
	{"keys that need quoting", edgeMeta + `keys
spec:
  "a.b/c": 1
  "x: y": 2
  "- z": 3
  "#k": 4
  key with spaces: 5
  "123": six
  "0x1F": seven
  "null": eight
  "~": nine
  "": ten
  "true": eleven
  on: twelve
`},
	{"CustomResourceDefinition", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: edges.example.com
spec:
  group: example.com
  names: {kind: Edge, plural: edges, singular: edge, listKind: EdgeList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode:
                type: string
                enum: [y, n, yes, no, on, off]
                default: on
              size:
                type: integer
                minimum: 0x10
                maximum: 9007199254740993
                default: 017
              ratio:
                type: number
                default: 1e3
              since:
                type: string
                format: date
                example: 2026-01-01
              port:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
---
apiVersion: example.com/v1
kind: Edge
metadata:
  name: uses-the-crd
spec: {mode: off, size: 0o20, ratio: .5, since: "2026-01-01"}
`},
	{"infinities and NaN (kustomize refuses them: JSON has none)", edgeMeta + `infinities
spec:
  inf: .inf
  negative: -.Inf
  nan: .NaN
`},
}

// TestCanonicalMeansWhatKustomizeReads: for each input of the corpus, kustomize builds the same
// objects from the canonical form as from the input.
func TestCanonicalMeansWhatKustomizeReads(t *testing.T) {
	for _, tt := range kustomizeCorpus {
		t.Run(tt.name, func(t *testing.T) {
			checkSameBuild(t, []byte(tt.src))
		})
	}
}

// TestCanonicalMeansWhatKustomizeReadsReleases does the same for whole releases: the generated
// fixtures and, when it is beside the repository, the Kratix Marketplace corpus.
func TestCanonicalMeansWhatKustomizeReadsReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds megabytes of manifests with kustomize")
	}
	tests := []struct {
		name string
		src  func(t *testing.T) []byte
	}{
		{"Pipelines", func(*testing.T) []byte { return fixtures.Pipelines() }},
		{"CertManager", func(*testing.T) []byte { return fixtures.CertManager() }},
		{"JenkinsCRD", func(*testing.T) []byte { return fixtures.JenkinsCRD() }},
		{"JenkinsOperator", func(*testing.T) []byte { return fixtures.JenkinsOperator() }},
		{"JenkinsInstance", func(*testing.T) []byte { return fixtures.JenkinsInstance() }},
		{"marketplace/tekton.yaml", func(t *testing.T) []byte { return marketplace(t, "tekton.yaml") }},
		{"marketplace/cert-manager.yaml", func(t *testing.T) []byte { return marketplace(t, "cert-manager.yaml") }},
		{"marketplace/jenkins-crd.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-crd.yaml") }},
		{"marketplace/jenkins-operator.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-operator.yaml") }},
		{"marketplace/jenkins-dev-instance.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-dev-instance.yaml") }},
		{"marketplace/jenkins-promise.yaml", func(t *testing.T) []byte { return marketplace(t, "jenkins-promise.yaml") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSameBuild(t, tt.src(t))
		})
	}
}
