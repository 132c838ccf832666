package scheduling

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Taint effects, as in Kubernetes (k8s.io/api/core/v1).
const (
	// EffectNoSchedule: nothing new is placed on the destination; what is there stays.
	EffectNoSchedule = "NoSchedule"
	// EffectPreferNoSchedule: the destination is chosen only when no other candidate is left.
	EffectPreferNoSchedule = "PreferNoSchedule"
	// EffectNoExecute: what is there leaves (requests move, dependencies are unscheduled).
	EffectNoExecute = "NoExecute"
)

// Toleration operators, as in Kubernetes.
const (
	TolerationOpEqual  = "Equal"
	TolerationOpExists = "Exists"
)

// Taint marks a destination as unwilling to take work that does not tolerate it.
type Taint struct {
	Key    string
	Value  string // optional
	Effect string // EffectNoSchedule, EffectPreferNoSchedule or EffectNoExecute
}

// Toleration lets work be placed on a destination despite a taint it matches. The fields mean
// what they mean in a Kubernetes toleration: an empty Key with Operator Exists matches every
// taint, an empty Effect matches every effect, and an empty Operator is Equal.
type Toleration struct {
	Key      string
	Operator string
	Value    string
	Effect   string
}

// String writes the taint as kubectl does: key=value:Effect, or key:Effect when the value is
// empty.
func (t Taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + t.Effect
	}
	return t.Key + "=" + t.Value + ":" + t.Effect
}

// Tolerates reports whether any of the tolerations tolerates the taint, with Kubernetes' rule
// (corev1.Toleration.ToleratesTaint with the comparison operators Lt and Gt disabled): a
// toleration's effect, when given, must be the taint's; its key, when given, must be the taint's;
// then Exists tolerates any value, Equal or an empty operator tolerates the same value only, and
// any other operator tolerates nothing. An empty key with Exists therefore tolerates every taint.
// Matching does not validate: Exists with a value still tolerates (ValidateToleration refuses
// that combination before it gets here).
func Tolerates(tols []Toleration, t Taint) bool {
	for i := range tols {
		if tolerates(&tols[i], &t) {
			return true
		}
	}
	return false
}

func tolerates(tol *Toleration, t *Taint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != t.Key {
		return false
	}
	switch tol.Operator {
	case "", TolerationOpEqual:
		return tol.Value == t.Value
	case TolerationOpExists:
		return true
	}
	return false
}

// Untolerated returns the taints that no toleration tolerates, in their order. It returns nil
// when every taint is tolerated.
func Untolerated(tols []Toleration, taints []Taint) []Taint {
	var out []Taint
	for _, t := range taints {
		if !Tolerates(tols, t) {
			out = append(out, t)
		}
	}
	return out
}

// effects lists the taint effects in the order errors name them.
const effects = EffectNoSchedule + ", " + EffectPreferNoSchedule + " or " + EffectNoExecute

// ValidateTaint checks a taint with Kubernetes' rules for a node's taint: the key is required
// and is a qualified name (an optional DNS prefix and a name, as a label key), the value is
// empty or a valid label value, and the effect is NoSchedule, PreferNoSchedule or NoExecute.
// Every problem is reported, each naming the field, the bad value and what is allowed.
func ValidateTaint(t Taint) error {
	var errs []error
	if t.Key == "" {
		errs = append(errs, errors.New(`taint key is empty: give a label key such as "maintenance" or "example.com/maintenance"`))
	} else if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("taint key %q is not a valid label key: %s", t.Key, strings.Join(msgs, "; ")))
	}
	if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("taint value %q is not a valid label value: %s", t.Value, strings.Join(msgs, "; ")))
	}
	switch t.Effect {
	case EffectNoSchedule, EffectPreferNoSchedule, EffectNoExecute:
	case "":
		errs = append(errs, fmt.Errorf("taint %q has no effect: give %s", t.Key, effects))
	default:
		errs = append(errs, fmt.Errorf("taint effect %q is not known: use %s", t.Effect, effects))
	}
	return errors.Join(errs...)
}

// ValidateTaints checks each taint with ValidateTaint, and, as Kubernetes does for a node, that
// no two taints share a key and an effect (a second one could never be told apart from the first
// by a toleration of that key and effect). Errors name the taint by its position (from 1).
func ValidateTaints(taints []Taint) error {
	var errs []error
	first := map[[2]string]int{}
	for i, t := range taints {
		if err := ValidateTaint(t); err != nil {
			errs = append(errs, fmt.Errorf("taint %d: %w", i+1, err))
		}
		k := [2]string{t.Key, t.Effect}
		if j, dup := first[k]; dup {
			errs = append(errs, fmt.Errorf("taint %d repeats the key %q and effect %s of taint %d: keep one, or give them different effects", i+1, t.Key, t.Effect, j+1))
			continue
		}
		first[k] = i
	}
	return errors.Join(errs...)
}

// ValidateToleration checks a toleration with Kubernetes' rules: the key, when given, is a
// qualified name; an empty key needs operator Exists (it then tolerates every taint); the
// operator is Equal, Exists or empty (meaning Equal); Exists takes no value, and Equal's value is
// a valid label value; the effect is empty (every effect) or one of the three. Kubernetes' Lt
// and Gt are refused: they compare numbers, which the provider's taints do not carry. Every
// problem is reported, each naming the field, the bad value and what is allowed.
func ValidateToleration(t Toleration) error {
	var errs []error
	if t.Key != "" {
		if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("toleration key %q is not a valid label key: %s", t.Key, strings.Join(msgs, "; ")))
		}
	} else if t.Operator != TolerationOpExists {
		errs = append(errs, fmt.Errorf("toleration without a key must use operator Exists (it then tolerates every taint), not %q: give a key or set operator = %q", t.Operator, TolerationOpExists))
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("toleration value %q is not a valid label value: %s", t.Value, strings.Join(msgs, "; ")))
		}
	case TolerationOpExists:
		if t.Value != "" {
			errs = append(errs, fmt.Errorf("toleration operator Exists takes no value, got %q: remove the value, or use operator Equal to match it", t.Value))
		}
	default:
		errs = append(errs, fmt.Errorf("toleration operator %q is not known: use Equal, Exists, or leave it empty (Equal)", t.Operator))
	}
	switch t.Effect {
	case "", EffectNoSchedule, EffectPreferNoSchedule, EffectNoExecute:
	default:
		errs = append(errs, fmt.Errorf("toleration effect %q is not known: use %s, or leave it empty to tolerate every effect", t.Effect, effects))
	}
	return errors.Join(errs...)
}

// PromiseTaintVerdict decides whether a promise's dependencies stay on (or go to) a destination
// that matches the promise's selectors, given the promise's tolerations and whether the
// dependencies were placed there before. A promise goes to every matching destination, so the
// verdict follows the strongest untolerated taint:
//
//   - NoExecute: not kept; the caller unschedules what is there as on_unschedule says.
//   - NoSchedule: kept only when placed before (nothing new is placed; what is there stays).
//   - PreferNoSchedule: kept. The effect only ranks candidates for work that goes to some of
//     them; a promise goes to all of them.
//
// The reason is empty when no taint is left untolerated, and otherwise names the deciding
// taints in kubectl's form, such as "tainted maintenance=2026-12-01:NoSchedule, not tolerated".
func PromiseTaintVerdict(tols []Toleration, d Destination, placedBefore bool) (keep bool, reason string) {
	if len(d.Taints) == 0 {
		return true, ""
	}
	switch effect, text := strongest(tols, d.Taints); effect {
	case EffectNoExecute:
		return false, text
	case EffectNoSchedule:
		if placedBefore {
			return true, text + "; placed before, so it stays"
		}
		return false, text
	case EffectPreferNoSchedule:
		return true, text + "; kept: a promise goes to every matching destination"
	}
	return true, ""
}

// strongest returns the strongest effect among the untolerated taints (NoExecute, then
// NoSchedule, then PreferNoSchedule; "" when every taint is tolerated) and the reason that names
// the untolerated taints of that effect. Taints of an unknown effect are ignored, as
// ValidateTaint refuses them.
func strongest(tols []Toleration, taints []Taint) (effect, reason string) {
	rank := 0
	for i := range taints {
		if r := effectRank(taints[i].Effect); r > rank && !Tolerates(tols, taints[i]) {
			rank, effect = r, taints[i].Effect
		}
	}
	if rank == 0 {
		return "", ""
	}
	var b strings.Builder
	b.WriteString("tainted ")
	n := 0
	for i := range taints {
		if taints[i].Effect == effect && !Tolerates(tols, taints[i]) {
			if n > 0 {
				b.WriteString(", ")
			}
			b.WriteString(taints[i].String())
			n++
		}
	}
	b.WriteString(", not tolerated")
	return effect, b.String()
}

func effectRank(effect string) int {
	switch effect {
	case EffectPreferNoSchedule:
		return 1
	case EffectNoSchedule:
		return 2
	case EffectNoExecute:
		return 3
	}
	return 0
}

// WithTaints turns off, with the taint as the reason, the selected decisions (Schedule's, in pool
// order) of destinations a promise may not stay on or go to (PromiseTaintVerdict); placedBefore
// says whether the promise is on a destination already. decisions is left as it is.
func WithTaints(decisions []Decision, pool []Destination, tols []Toleration, placedBefore func(name string) bool) []Decision {
	out := slices.Clone(decisions)
	for i, d := range out {
		if !d.Selected || len(pool[i].Taints) == 0 {
			continue
		}
		if keep, why := PromiseTaintVerdict(tols, pool[i], placedBefore(d.Destination)); !keep {
			out[i] = d.WithReason(why)
			out[i].Selected = false
		}
	}
	return out
}
