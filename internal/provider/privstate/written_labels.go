package privstate

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// A promise keeps, in its private state, the labels each destination had when the promise's
// files there were last written (placement.WrittenLabels). The guard judges a removal by them
// too: a placement kept misscheduled (on_unschedule = "keep") is not written again, so a
// protected destination relabelled in one plan and stripped in a later one (on_unschedule
// switched to "delete") is refused as the same change made in one plan is. The labels are the
// user's own configuration, not secrets.
// (The key is WrittenLabelsKey, keys.go.)

// ReadWrittenLabels returns the labels recorded by the last apply, by destination; nil when none
// were (a promise applied before they were kept, or a create).
func ReadWrittenLabels(ctx context.Context, p Reader) map[string]map[string]string {
	if p == nil {
		return nil
	}
	b, d := p.GetKey(ctx, WrittenLabelsKey)
	if d.HasError() || len(b) == 0 {
		return nil
	}
	var out map[string]map[string]string
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func WriteWrittenLabels(ctx context.Context, p Writer, labels map[string]map[string]string) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if len(labels) == 0 {
		return p.SetKey(ctx, WrittenLabelsKey, nil)
	}
	b, err := json.Marshal(labels)
	if err != nil {
		return nil // maps of strings always encode
	}
	return p.SetKey(ctx, WrittenLabelsKey, b)
}

// WithWrittenLabels gives each prior placement the labels its files were written under.
func WithWrittenLabels(prior map[string]placement.Prior, labels map[string]map[string]string) {
	for dest, pr := range prior {
		if l, ok := labels[dest]; ok {
			pr.WrittenLabels = l
			prior[dest] = pr
		}
	}
}
