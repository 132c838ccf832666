// Package scheduling decides where Kratix work goes: which destinations a promise's selectors
// select (with Kratix's rules for combining them, and Kubernetes' meaning for set-based
// requirements), why each other destination is not selected, and which single destination a
// resource request lands on.
//
// It is pure: no Terraform, no I/O.
package scheduling

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Operators of match_expressions, as in Kubernetes.
const (
	OpIn           = "In"
	OpNotIn        = "NotIn"
	OpExists       = "Exists"
	OpDoesNotExist = "DoesNotExist"
)

// Requirement is one set-based requirement (a Kubernetes matchExpressions entry).
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// Selector is one destination_selectors entry, or the merge of several.
type Selector struct {
	MatchLabels      map[string]string
	MatchExpressions []Requirement
}

// Empty reports whether the selector selects on nothing.
func (s Selector) Empty() bool { return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 }

// String renders the selector in Kubernetes' selector syntax, labels first in key order:
// "environment=dev,zone in (a,b)". An empty selector is "".
func (s Selector) String() string {
	var parts []string
	for _, k := range sortedKeys(s.MatchLabels) {
		parts = append(parts, k+"="+s.MatchLabels[k])
	}
	for _, r := range s.MatchExpressions {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

func (r Requirement) String() string {
	switch r.Operator {
	case OpExists:
		return r.Key
	case OpDoesNotExist:
		return "!" + r.Key
	case OpNotIn:
		return fmt.Sprintf("%s notin (%s)", r.Key, strings.Join(r.Values, ","))
	}
	return fmt.Sprintf("%s in (%s)", r.Key, strings.Join(r.Values, ","))
}

// FieldError is a validation problem at a path relative to the list of entries, such as
// [0 "match_labels" "bad key"] or [1 "match_expressions" 0 "values"].
type FieldError struct {
	Path    []any
	Message string
}

// Validate checks selector entries with Kubernetes' rules for label keys and values and for
// set-based requirements.
func Validate(entries []Selector) []FieldError {
	var errs []FieldError
	for i, e := range entries {
		for _, k := range sortedKeys(e.MatchLabels) {
			if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
				errs = append(errs, FieldError{[]any{i, "match_labels", k}, fmt.Sprintf("%q is not a valid label key: %s", k, strings.Join(msgs, "; "))})
			}
			if msgs := validation.IsValidLabelValue(e.MatchLabels[k]); len(msgs) > 0 {
				errs = append(errs, FieldError{[]any{i, "match_labels", k}, fmt.Sprintf("%q is not a valid label value: %s", e.MatchLabels[k], strings.Join(msgs, "; "))})
			}
		}
		for j, r := range e.MatchExpressions {
			at := func(field string) []any { return []any{i, "match_expressions", j, field} }
			if msgs := validation.IsQualifiedName(r.Key); len(msgs) > 0 {
				errs = append(errs, FieldError{at("key"), fmt.Sprintf("%q is not a valid label key: %s", r.Key, strings.Join(msgs, "; "))})
			}
			switch r.Operator {
			case OpIn, OpNotIn:
				if len(r.Values) == 0 {
					errs = append(errs, FieldError{at("values"), fmt.Sprintf("operator %s needs at least one value", r.Operator)})
				}
				for _, v := range r.Values {
					if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
						errs = append(errs, FieldError{at("values"), fmt.Sprintf("%q is not a valid label value: %s", v, strings.Join(msgs, "; "))})
					}
				}
			case OpExists, OpDoesNotExist:
				if len(r.Values) > 0 {
					errs = append(errs, FieldError{at("values"), fmt.Sprintf("operator %s takes no values; remove values", r.Operator)})
				}
			default:
				errs = append(errs, FieldError{at("operator"), fmt.Sprintf("unknown operator %q; use In, NotIn, Exists or DoesNotExist", r.Operator)})
			}
		}
	}
	return errs
}

// Merge combines destination_selectors entries as Kratix does: they AND. The match_labels maps
// merge into one, and on a key given twice the first entry wins (Kratix walks the list backwards
// and lets earlier entries overwrite later ones). Every expression must hold.
func Merge(entries []Selector) Selector {
	out := Selector{MatchLabels: map[string]string{}}
	for _, e := range entries {
		for k, v := range e.MatchLabels {
			if _, taken := out.MatchLabels[k]; !taken {
				out.MatchLabels[k] = v
			}
		}
		out.MatchExpressions = append(out.MatchExpressions, e.MatchExpressions...)
	}
	return out
}

// Conflict is a request's selector ignored because its promise selects the same key.
type Conflict struct {
	Key, PromiseValue, RequestValue string
}

// Combine adds a resource request's selector to its promise's. A key in both keeps the promise's
// value, so a request can never escape its promise's placement; each ignored key is reported.
func Combine(promise, request Selector) (Selector, []Conflict) {
	out := Selector{MatchLabels: map[string]string{}}
	for k, v := range promise.MatchLabels {
		out.MatchLabels[k] = v
	}
	var conflicts []Conflict
	for _, k := range sortedKeys(request.MatchLabels) {
		v := request.MatchLabels[k]
		if pv, taken := out.MatchLabels[k]; taken {
			if pv != v {
				conflicts = append(conflicts, Conflict{Key: k, PromiseValue: pv, RequestValue: v})
			}
			continue
		}
		out.MatchLabels[k] = v
	}
	out.MatchExpressions = append(append(out.MatchExpressions, promise.MatchExpressions...), request.MatchExpressions...)
	return out, conflicts
}

// requirement turns a Requirement into Kubernetes' own, so that the operators mean exactly what
// they mean in a Kubernetes label selector (NotIn holds for a destination without the label).
func (r Requirement) requirement() (*labels.Requirement, error) {
	op := map[string]selection.Operator{
		OpIn: selection.In, OpNotIn: selection.NotIn, OpExists: selection.Exists, OpDoesNotExist: selection.DoesNotExist,
	}[r.Operator]
	if op == "" {
		return nil, fmt.Errorf("unknown operator %q", r.Operator)
	}
	return labels.NewRequirement(r.Key, op, r.Values)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
