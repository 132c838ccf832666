package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// providerData is what Configure hands to every resource and data source.
type providerData struct {
	// secrets are the provider block's credential sets, with the environment (configureSecrets).
	secrets   storeconfig.Secrets
	lookupEnv func(string) (string, bool)
	// hashKey is content_hash_key from the provider block ("" when unset; see contentSecret).
	hashKey        string
	hashKeyUnknown bool
	// destroyAcks are the provider block's destroy_acknowledgements (guardattr).
	destroyAcks map[string]bool
	// owner is who this configuration writes for across workspaces ("" when unnamed; owner.go).
	owner string
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

// configureSecrets records the provider's secrets (storeconfig.ReadSecrets).
func (d *providerData) configureSecrets(ctx context.Context, v types.Map, diags *diag.Diagnostics) {
	d.secrets = storeconfig.ReadSecrets(ctx, v, d.lookupEnv, diags)
}

// checkCredentials finds, during plan, the credential mistakes of a store object that would
// otherwise fail only at apply (storeconfig.Secrets.CheckCredentials); none offline, where no
// credentials are needed. at is the path of the store object in the resource.
func (d *providerData) checkCredentials(m storeconfig.Ref, at path.Path) diag.Diagnostics {
	if d.isOffline() {
		return nil
	}
	return d.secrets.CheckCredentials(m, at)
}

// open returns the store for a state_store object, built on first use and reused for the life of
// the provider process. createBucket lets a bucket store's Check create a missing bucket.
func (d *providerData) open(m storeconfig.Ref, createBucket bool) (statestore.Store, error) {
	if d.isOffline() {
		return nil, errOffline
	}
	cfg, err := d.secrets.Config(m, createBucket)
	if err != nil {
		return nil, err
	}
	if cfg.Bucket != nil {
		return d.pool.Bucket(*cfg.Bucket)
	}
	return d.pool.Git(*cfg.Git)
}

// isOffline says whether the provider plans without stores; false for an unconfigured provider.
func (d *providerData) isOffline() bool {
	return d != nil && d.offline
}

// acksForDestroy is the provider block's destroy_acknowledgements; nil when unconfigured.
func (d *providerData) acksForDestroy() map[string]bool {
	if d == nil {
		return nil
	}
	return d.destroyAcks
}

// ownerName is the owner this provider writes as (its `owner`); "" when not configured.
func (d *providerData) ownerName() string {
	if d == nil {
		return ""
	}
	return d.owner
}
