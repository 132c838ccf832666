package health

import "testing"

const (
	shaA = "0123456789abcdef0123456789abcdef01234567"
	shaB = "89abcdef0123456789abcdef0123456789abcdef"
)

// TestRevisionOf: the forms Flux writes for a git source, and what is not one.
func TestRevisionOf(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"main@sha1:0123456789abcdef0123456789abcdef01234567", shaA},
		{"refs/heads/release/v1@sha1:0123456789ABCDEF0123456789abcdef01234567", shaA},
		{"v1.2.3@sha1:0123456789abcdef0123456789abcdef01234567", shaA},
		{"sha1:0123456789abcdef0123456789abcdef01234567", shaA},
		{"main/0123456789abcdef0123456789abcdef01234567", shaA},
		{"feature/x/0123456789abcdef0123456789abcdef01234567", shaA},
		{"0123456789abcdef0123456789abcdef01234567", shaA},
		{"  0123456789ABCDEF0123456789ABCDEF01234567\n", shaA},
		{"", ""},
		{"main", ""},
		{"garbage@sha1:not-a-sha", ""},
		{"main@sha1:0123456789abcdef0123456789abcdef0123456", ""},   // 39 hex
		{"main@sha1:0123456789abcdef0123456789abcdef012345678", ""}, // 41 hex
		{"main@sha1:0123456789abcdef0123456789abcdef0123456g", ""},  // not hex
		{"main@0123456789abcdef0123456789abcdef01234567", ""},       // "@" without "sha1:"
		{"main@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ""},
		{"latest@sha256:0123456789abcdef0123456789abcdef01234567", ""},
		{"0123456", ""}, // a short sha is not what Flux reports
		{"main/", ""},
	}
	for _, tt := range tests {
		if got := RevisionOf(tt.in); got != tt.want {
			t.Errorf("RevisionOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestParse_revision: where in data.details a record's revision is looked for.
func TestParse_revision(t *testing.T) {
	const head = "apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\ndata:\n  promiseRef: {name: p}\n"
	tests := []struct {
		name, details, want string
	}{
		{"no details", "", ""},
		{"top level, Flux 2", "  details: {lastAppliedRevision: main@sha1:" + shaA + "}\n", shaA},
		{"top level, older Flux", "  details: {lastAppliedRevision: main/" + shaB + "}\n", shaB},
		{"top level, bare", "  details: {lastAppliedRevision: " + shaA + "}\n", shaA},
		{"top level, garbage", "  details: {lastAppliedRevision: whatever}\n", ""},
		{"top level, a mapping", "  details: {lastAppliedRevision: {sha: " + shaA + "}}\n", ""},
		{"one level down", "  details:\n    flux: {lastAppliedRevision: main@sha1:" + shaA + "}\n", shaA},
		{"one level down, kustomization", "  details:\n    kustomization: {lastAppliedRevision: main/" + shaB + "}\n", shaB},
		{"top level wins over one level down", "  details:\n    lastAppliedRevision: " + shaA + "\n    flux: {lastAppliedRevision: " + shaB + "}\n", shaA},
		{"two levels down is not searched", "  details:\n    flux: {status: {lastAppliedRevision: " + shaA + "}}\n", ""},
		{"one level down, two that agree", "  details:\n    a: {lastAppliedRevision: main@sha1:" + shaA + "}\n    b: {lastAppliedRevision: main/" + shaA + "}\n", shaA},
		{"one level down, two that disagree", "  details:\n    a: {lastAppliedRevision: " + shaA + "}\n    b: {lastAppliedRevision: " + shaB + "}\n", ""},
		{"one level down, one unreadable", "  details:\n    a: {lastAppliedRevision: " + shaA + "}\n    b: {lastAppliedRevision: pending}\n", ""},
		{"one level down, beside other values", "  details:\n    checks: [x]\n    message: ok\n    flux: {lastAppliedRevision: " + shaA + "}\n", shaA},
		{"through an alias", "  details:\n    flux: *f\n", shaA},
		{"details a list", "  details: [{lastAppliedRevision: " + shaA + "}]\n", ""},
		{"details a string", "  details: " + shaA + "\n", ""},
		{"another key", "  details: {lastAttemptedRevision: " + shaA + "}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + tt.details
			if tt.name == "through an alias" {
				src = "apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\nmetadata:\n  annotations: &f {lastAppliedRevision: " + shaA + "}\n" +
					"data:\n  promiseRef: {name: p}\n" + tt.details
			}
			got, err := Parse("h/d/r.yaml", []byte(src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(got) != 1 || got[0].Revision != tt.want {
				t.Errorf("Parse = %#v, want one record with Revision %q", got, tt.want)
			}
		})
	}
}
