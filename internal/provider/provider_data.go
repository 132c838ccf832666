package provider

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// providerData is what Configure hands to every resource and data source.
type providerData struct {
	secrets        map[string]secretSet
	secretsUnknown bool            // the secrets attribute as a whole was not known at Configure
	unknownSets    map[string]bool // sets with a value not known at Configure (planned from other resources)
	lookupEnv      func(string) (string, bool)
	environ        func() []string // os.Environ when nil; tests replace it
	// hashKey is content_hash_key from the provider block ("" when unset; see contentSecret).
	hashKey        string
	hashKeyUnknown bool
	// destroyAcks are the provider block's destroy_acknowledgements (guard.go).
	destroyAcks map[string]bool
	// offline is the provider's offline attribute: plan without stores, refuse to apply (offline.go).
	offline bool
	// processState holds the registries one command shares between its operations
	// (process_state.go).
	processState
	// now is the provider's clock (see clock); nil: time.Now.
	now func() time.Time
}

// clock is the time a plan or an apply decides a rollout by (min_wait, rollout_status's times)
// and an import is recorded at: the provider's clock, which tests set, else time.Now.
func (d *providerData) clock() time.Time {
	if d == nil || d.now == nil {
		return time.Now()
	}
	return d.now()
}

// providerDataFrom is the Configure step shared by every resource and data source.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		// Not configured yet: Terraform validates configurations before configuring providers.
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected Provider Data",
			fmt.Sprintf("Expected *providerData, got %T. This is always a bug in the provider; please report it.", data))
		return nil
	}
	return pd
}
