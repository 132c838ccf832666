package provider

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// storeErrorDetail explains a failed store operation: the object, the store, the cause and what
// to do about it.
func storeErrorDetail(what string, err error) string {
	var se *statestore.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: %s: %s.\n\nCause: %v\n\n%s", what, se.Store, se.Kind, se.Err, se.Advice())
	}
	return fmt.Sprintf("%s: %v", what, err)
}

// addStoreError adds an error diagnostic for a failed store operation.
func addStoreError(diags *diag.Diagnostics, summary, what string, err error) {
	diags.AddError(summary, storeErrorDetail(what, err))
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
