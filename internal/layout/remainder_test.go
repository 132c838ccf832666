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

// SameAggregate: the same pieces between "\n---\n" separators, as exact text, in any order.
func TestSameAggregate(t *testing.T) {
	const (
		a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
		b = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
	)
	for _, tc := range []struct {
		name            string
		current, joined string
		want            bool
	}{
		{"same bytes", a + "\n---\n" + b, a + "\n---\n" + b, true},
		{"order swapped", b + "\n---\n" + a, a + "\n---\n" + b, true},
		{"three pieces rotated", "x\n---\ny\n---\nz", "y\n---\nz\n---\nx", true},
		{"one piece changed", b + "\n---\n" + a, a + "\n---\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", false},
		// The same object in another serialisation is another piece: only the order may differ.
		{"one piece reserialised", "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n\n---\n" + b, a + "\n---\n" + b, false},
		{"a piece duplicated", a + "\n---\n" + a, a + "\n---\n" + b, false},
		{"a piece duplicated, the other way", a + "\n---\n" + b, a + "\n---\n" + a, false},
		{"a piece more", a + "\n---\n" + b + "\n---\n" + a, b + "\n---\n" + a, false},
		{"a piece less", a, a + "\n---\n" + b, false},
		// Same length, same pieces but one: "xy" and "yx" are other pieces than "x" and "y".
		{"same length, other cut", "xy\n---\nz", "x\n---\nyz", false},
		{"both empty", "", "", true},
		{"empty file", "", a, false},
		{"empty join", a, "", false},
		{"an empty piece moved", "\n---\n" + a, a + "\n---\n", true},
		{"a separator without its first newline is no cut", "x---\ny", "y---\nx", false},
	} {
		if got := SameAggregate([]byte(tc.current), []byte(tc.joined)); got != tc.want {
			t.Errorf("%s: SameAggregate(%q, %q) = %v, want %v", tc.name, tc.current, tc.joined, got, tc.want)
		}
	}
}
