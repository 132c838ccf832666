package scheduling_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Kubernetes' rule, case by case, with what each case shows.
func TestTolerates(t *testing.T) {
	maint := scheduling.Taint{Key: "maintenance", Value: "2026-12-01", Effect: scheduling.EffectNoSchedule}
	cases := []struct {
		name string
		tol  scheduling.Toleration
		want bool
	}{
		{"same key, value and effect", scheduling.Toleration{Key: "maintenance", Operator: "Equal", Value: "2026-12-01", Effect: "NoSchedule"}, true},
		{"empty operator is Equal", scheduling.Toleration{Key: "maintenance", Value: "2026-12-01"}, true},
		{"Equal with another value", scheduling.Toleration{Key: "maintenance", Operator: "Equal", Value: "2027-01-01"}, false},
		{"empty operator with another value", scheduling.Toleration{Key: "maintenance", Value: ""}, false},
		{"Exists ignores the value", scheduling.Toleration{Key: "maintenance", Operator: "Exists"}, true},
		{"Exists with a value still matches (validation refuses it)", scheduling.Toleration{Key: "maintenance", Operator: "Exists", Value: "x"}, true},
		{"empty key with Exists tolerates everything", scheduling.Toleration{Operator: "Exists"}, true},
		{"empty key matches every key, even with Equal (validation refuses it)", scheduling.Toleration{Value: "2026-12-01"}, true},
		{"empty key with Equal still compares the value", scheduling.Toleration{Value: "2027-01-01"}, false},
		{"empty effect matches every effect", scheduling.Toleration{Key: "maintenance", Operator: "Exists", Effect: ""}, true},
		{"another effect", scheduling.Toleration{Key: "maintenance", Operator: "Exists", Effect: "NoExecute"}, false},
		{"another key", scheduling.Toleration{Key: "gpu", Operator: "Exists"}, false},
		{"Lt is not supported", scheduling.Toleration{Key: "maintenance", Operator: "Lt", Value: "2026-12-01"}, false},
		{"unknown operator", scheduling.Toleration{Key: "maintenance", Operator: "Matches", Value: "2026-12-01"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := scheduling.Tolerates([]scheduling.Toleration{c.tol}, maint); got != c.want {
				t.Errorf("Tolerates(%+v, %s) = %v, want %v", c.tol, maint, got, c.want)
			}
		})
	}
	if scheduling.Tolerates(nil, maint) {
		t.Errorf("no tolerations tolerate %s", maint)
	}
	two := []scheduling.Toleration{{Key: "gpu", Operator: "Exists"}, {Key: "maintenance", Operator: "Exists", Effect: "NoSchedule"}}
	if !scheduling.Tolerates(two, maint) {
		t.Errorf("the second of %+v tolerates %s", two, maint)
	}
}

// Tolerates is compared with Kubernetes' own corev1.Toleration.ToleratesTaint (comparison
// operators disabled) on every combination of a small vocabulary: empty and set keys, values,
// every operator (empty, Lt and Gt, and an invalid one) and every effect (empty and invalid
// ones too), then on random lists of tolerations against any-of Kubernetes' answers.
func TestToleratesAgreesWithKubernetes(t *testing.T) {
	keys := []string{"", "a", "b"}
	values := []string{"", "x", "y", "1", "2"}
	ops := []string{"", "Equal", "Exists", "Lt", "Gt", "Bogus"}
	effects := []string{"", "NoSchedule", "PreferNoSchedule", "NoExecute", "Bogus"}
	var taints []scheduling.Taint
	for _, k := range keys {
		for _, v := range values {
			for _, e := range effects {
				taints = append(taints, scheduling.Taint{Key: k, Value: v, Effect: e})
			}
		}
	}
	var tols []scheduling.Toleration
	for _, k := range keys {
		for _, o := range ops {
			for _, v := range values {
				for _, e := range effects {
					tols = append(tols, scheduling.Toleration{Key: k, Operator: o, Value: v, Effect: e})
				}
			}
		}
	}
	k8s := func(tol scheduling.Toleration, taint scheduling.Taint) bool {
		kt := corev1.Toleration{Key: tol.Key, Operator: corev1.TolerationOperator(tol.Operator), Value: tol.Value, Effect: corev1.TaintEffect(tol.Effect)}
		ktaint := corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)}
		return kt.ToleratesTaint(logr.Discard(), &ktaint, false)
	}
	tolerated := 0
	for _, taint := range taints {
		for _, tol := range tols {
			want := k8s(tol, taint)
			if got := scheduling.Tolerates([]scheduling.Toleration{tol}, taint); got != want {
				t.Fatalf("Tolerates(%+v, %+v) = %v; Kubernetes says %v", tol, taint, got, want)
			}
			if want {
				tolerated++
			}
		}
	}
	// Both answers come up often: the comparison is not trivially all false or all true.
	if total := len(taints) * len(tols); tolerated < 1000 || tolerated > total-1000 {
		t.Fatalf("%d of %d pairs tolerated: the vocabulary does not exercise both answers", tolerated, total)
	}
	rng := rand.New(rand.NewPCG(23, 1))
	for range 20_000 {
		list := make([]scheduling.Toleration, rng.IntN(4))
		for i := range list {
			list[i] = tols[rng.IntN(len(tols))]
		}
		taint := taints[rng.IntN(len(taints))]
		want := false
		for _, tol := range list {
			want = want || k8s(tol, taint)
		}
		if got := scheduling.Tolerates(list, taint); got != want {
			t.Fatalf("Tolerates(%+v, %+v) = %v; Kubernetes says %v", list, taint, got, want)
		}
	}
}

// A taint's text is kubectl's (corev1.Taint.ToString) for every taint with an effect.
func TestTaintString(t *testing.T) {
	for _, taint := range []scheduling.Taint{
		{Key: "maintenance", Value: "2026-12-01", Effect: "NoSchedule"},
		{Key: "gpu", Effect: "PreferNoSchedule"},
		{Key: "example.com/drain", Value: "x", Effect: "NoExecute"},
	} {
		k := corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)}
		if got, want := taint.String(), k.ToString(); got != want {
			t.Errorf("%+v: %q, kubectl writes %q", taint, got, want)
		}
	}
	if got := (scheduling.Taint{Key: "maintenance", Value: "2026-12-01", Effect: "NoSchedule"}).String(); got != "maintenance=2026-12-01:NoSchedule" {
		t.Errorf("got %q", got)
	}
}

func TestUntolerated(t *testing.T) {
	a := scheduling.Taint{Key: "a", Value: "1", Effect: "NoSchedule"}
	b := scheduling.Taint{Key: "b", Effect: "NoExecute"}
	p := scheduling.Taint{Key: "p", Value: "2", Effect: "PreferNoSchedule"}
	taints := []scheduling.Taint{a, b, p}
	cases := []struct {
		tols []scheduling.Toleration
		want []scheduling.Taint
	}{
		{nil, []scheduling.Taint{a, b, p}},
		{[]scheduling.Toleration{{Key: "b", Operator: "Exists"}}, []scheduling.Taint{a, p}},
		{[]scheduling.Toleration{{Key: "a", Value: "1"}, {Key: "p", Value: "2", Effect: "PreferNoSchedule"}}, []scheduling.Taint{b}},
		{[]scheduling.Toleration{{Operator: "Exists"}}, nil},
		{[]scheduling.Toleration{{Operator: "Exists", Effect: "NoExecute"}}, []scheduling.Taint{a, p}},
	}
	for _, c := range cases {
		if got := scheduling.Untolerated(c.tols, taints); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Untolerated(%+v) = %v, want %v", c.tols, got, c.want)
		}
	}
}

// Every rule of Kubernetes' taint and toleration validation, each with the text a user acts on.
func TestValidateTaint(t *testing.T) {
	cases := []struct {
		taint scheduling.Taint
		want  []string // substrings of the error; none: valid
	}{
		{scheduling.Taint{Key: "maintenance", Value: "2026-12-01", Effect: "NoSchedule"}, nil},
		{scheduling.Taint{Key: "example.com/gpu", Effect: "PreferNoSchedule"}, nil},
		{scheduling.Taint{Key: "drain", Effect: "NoExecute"}, nil},
		{scheduling.Taint{Effect: "NoSchedule"}, []string{"taint key is empty"}},
		{scheduling.Taint{Key: "bad key!", Effect: "NoSchedule"}, []string{`taint key "bad key!" is not a valid label key`}},
		{scheduling.Taint{Key: "a", Value: "not valid!", Effect: "NoSchedule"}, []string{`taint value "not valid!" is not a valid label value`}},
		{scheduling.Taint{Key: "a"}, []string{`taint "a" has no effect: give NoSchedule, PreferNoSchedule or NoExecute`}},
		{scheduling.Taint{Key: "a", Effect: "NoScheduleNoAdmit"}, []string{`taint effect "NoScheduleNoAdmit" is not known: use NoSchedule, PreferNoSchedule or NoExecute`}},
		{scheduling.Taint{Key: "bad key!", Value: "not valid!", Effect: "Never"}, []string{"bad key!", "not valid!", `"Never"`}},
	}
	for _, c := range cases {
		checkErr(t, fmt.Sprintf("ValidateTaint(%+v)", c.taint), scheduling.ValidateTaint(c.taint), c.want)
	}
}

func TestValidateTaints(t *testing.T) {
	ok := []scheduling.Taint{{Key: "a", Effect: "NoSchedule"}, {Key: "a", Value: "x", Effect: "NoExecute"}, {Key: "b", Effect: "NoSchedule"}}
	checkErr(t, "ValidateTaints(distinct)", scheduling.ValidateTaints(ok), nil)
	checkErr(t, "ValidateTaints(nil)", scheduling.ValidateTaints(nil), nil)
	dup := []scheduling.Taint{{Key: "a", Value: "x", Effect: "NoSchedule"}, {Key: "b", Effect: "NoSchedule"}, {Key: "a", Value: "y", Effect: "NoSchedule"}}
	checkErr(t, "ValidateTaints(duplicate)", scheduling.ValidateTaints(dup), []string{`taint 3 repeats the key "a" and effect NoSchedule of taint 1`})
	bad := []scheduling.Taint{{Key: "a", Effect: "NoSchedule"}, {Key: "bad key!", Effect: "NoSchedule"}}
	checkErr(t, "ValidateTaints(bad key)", scheduling.ValidateTaints(bad), []string{`taint 2: taint key "bad key!" is not a valid label key`})
}

func TestValidateToleration(t *testing.T) {
	cases := []struct {
		tol  scheduling.Toleration
		want []string
	}{
		{scheduling.Toleration{Key: "maintenance", Operator: "Equal", Value: "2026-12-01", Effect: "NoSchedule"}, nil},
		{scheduling.Toleration{Key: "maintenance", Value: "2026-12-01"}, nil},
		{scheduling.Toleration{Key: "maintenance", Operator: "Exists"}, nil},
		{scheduling.Toleration{Operator: "Exists"}, nil},
		{scheduling.Toleration{Operator: "Exists", Effect: "NoExecute"}, nil},
		{scheduling.Toleration{Key: "a", Operator: "Equal"}, nil}, // an empty value is a label value
		{scheduling.Toleration{Value: "x"}, []string{`toleration without a key must use operator Exists`, `not ""`}},
		{scheduling.Toleration{Operator: "Equal"}, []string{`toleration without a key must use operator Exists`, `not "Equal"`}},
		{scheduling.Toleration{Key: "bad key!", Operator: "Exists"}, []string{`toleration key "bad key!" is not a valid label key`}},
		{scheduling.Toleration{Key: "a", Operator: "Exists", Value: "x"}, []string{`toleration operator Exists takes no value, got "x"`}},
		{scheduling.Toleration{Key: "a", Value: "not valid!"}, []string{`toleration value "not valid!" is not a valid label value`}},
		{scheduling.Toleration{Key: "a", Operator: "Lt", Value: "3"}, []string{`toleration operator "Lt" is not known: use Equal, Exists`}},
		{scheduling.Toleration{Key: "a", Operator: "Exists", Effect: "Never"}, []string{`toleration effect "Never" is not known`}},
	}
	for _, c := range cases {
		checkErr(t, fmt.Sprintf("ValidateToleration(%+v)", c.tol), scheduling.ValidateToleration(c.tol), c.want)
	}
}

func checkErr(t *testing.T, call string, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: %v, want no error", call, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: no error, want one saying %q", call, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", call, err, w)
		}
	}
}

func TestPromiseTaintVerdict(t *testing.T) {
	ns := scheduling.Taint{Key: "maintenance", Value: "2026-12-01", Effect: "NoSchedule"}
	ne := scheduling.Taint{Key: "drain", Effect: "NoExecute"}
	pn := scheduling.Taint{Key: "spot", Effect: "PreferNoSchedule"}
	tolAll := []scheduling.Toleration{{Operator: "Exists"}}
	cases := []struct {
		name   string
		taints []scheduling.Taint
		tols   []scheduling.Toleration
		before bool
		keep   bool
		reason string
	}{
		{"untainted", nil, nil, false, true, ""},
		{"NoSchedule, new", []scheduling.Taint{ns}, nil, false, false, "tainted maintenance=2026-12-01:NoSchedule, not tolerated"},
		{"NoSchedule, placed before", []scheduling.Taint{ns}, nil, true, true, "tainted maintenance=2026-12-01:NoSchedule, not tolerated; placed before, so it stays"},
		{"NoSchedule tolerated", []scheduling.Taint{ns}, []scheduling.Toleration{{Key: "maintenance", Operator: "Exists"}}, false, true, ""},
		{"NoExecute, placed before", []scheduling.Taint{ne}, nil, true, false, "tainted drain:NoExecute, not tolerated"},
		{"NoExecute, new", []scheduling.Taint{ne}, nil, false, false, "tainted drain:NoExecute, not tolerated"},
		{"PreferNoSchedule", []scheduling.Taint{pn}, nil, false, true, "tainted spot:PreferNoSchedule, not tolerated; kept: a promise goes to every matching destination"},
		{"everything tolerated", []scheduling.Taint{ns, ne, pn}, tolAll, false, true, ""},
		{"the strongest decides", []scheduling.Taint{pn, ns, ne}, nil, true, false, "tainted drain:NoExecute, not tolerated"},
		{"NoExecute tolerated, NoSchedule not", []scheduling.Taint{ne, ns}, []scheduling.Toleration{{Key: "drain", Operator: "Exists"}}, false, false, "tainted maintenance=2026-12-01:NoSchedule, not tolerated"},
		{"two untolerated of one effect", []scheduling.Taint{ns, {Key: "b", Effect: "NoSchedule"}}, nil, false, false, "tainted maintenance=2026-12-01:NoSchedule, b:NoSchedule, not tolerated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keep, reason := scheduling.PromiseTaintVerdict(c.tols, scheduling.Destination{Name: "d", Taints: c.taints}, c.before)
			if keep != c.keep || reason != c.reason {
				t.Errorf("got %v %q, want %v %q", keep, reason, c.keep, c.reason)
			}
		})
	}
}
