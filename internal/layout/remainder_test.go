package layout

import "testing"

func TestRemainder(t *testing.T) {
	const (
		a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
		b = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
		c = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: c\n"
	)
	file := a + "\n---\n" + b + "\n---\n" + c
	for _, tc := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"no part", nil, file},
		{"one held", []string{b}, a + "\n---\n" + c},
		// Kratix's serialisation and the part's differ; the objects are the same.
		{"held in another form", []string{"kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n"}, b + "\n---\n" + c},
		{"held by a part of several documents", []string{a + "---\n" + c}, b},
		{"all held", []string{c, a + "\n---\n" + b}, ""},
		{"an unrelated part", []string{"kind: Other\n"}, file},
	} {
		parts := make([][]byte, len(tc.parts))
		for i, p := range tc.parts {
			parts[i] = []byte(p)
		}
		if got := string(Remainder([]byte(file), parts)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// Blank pieces go; a piece that is not Kubernetes YAML is compared as text.
	if got := string(Remainder([]byte("\n---\nnot: [yaml\n---\n"+a), [][]byte{[]byte(a)})); got != "not: [yaml" {
		t.Errorf("text piece: got %q", got)
	}
	if got := Remainder([]byte("  \n"), nil); got != nil {
		t.Errorf("blank content: got %q", got)
	}
	// A piece of two documents, one held, stays whole.
	two := a + "--- \n" + b // one piece: the separator is "\n---\n"
	if got := string(Remainder([]byte(two), [][]byte{[]byte(a)})); got != two {
		t.Errorf("partly held: got %q", got)
	}
}
