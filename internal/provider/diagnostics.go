package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// The provider's repeated diagnostics, each built in one place so that it says the same thing
// everywhere: what failed, for which object and where, and what to do about it. A diagnostic
// used once stays where it is raised.

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

// storeNotUsableAdvice is what to do when a store's client cannot be made.
const storeNotUsableAdvice = "The store's settings or credentials could not be turned into a client; the cause above " +
	"says which. Check the kratix_state_store resource and the credentials it names (provider `secrets`, or the " +
	"KRATIX_SECRET_<NAME>_<KEY> environment variables), then plan again. Nothing was written to this store."

// storeNotUsable: who (e.g. `Promise "jenkins"`) cannot open state store store.
func storeNotUsable(who, store string, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic("State Store Not Usable",
		fmt.Sprintf("%s cannot use state store %q: %v\n\n%s", who, store, err, storeNotUsableAdvice))
}

// storeNotUsableAt is storeNotUsable reported at an attribute; what says who and which store
// (`Destination "dev" cannot use state store "s"`).
func storeNotUsableAt(at path.Path, what string, err error) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "State Store Not Usable",
		fmt.Sprintf("%s: %v\n\n%s", what, err, storeNotUsableAdvice))
}

// notKnown: an object's inputs are unknown where Terraform has resolved every value (when it
// applies a resource, or reads a data source), which Terraform's own rules rule out. summary
// names the object ("Promise Not Known"), what says which inputs ("The promise's inputs are").
func notKnown(summary, what string) diag.Diagnostic {
	return diag.NewErrorDiagnostic(summary, what+" still unknown where Terraform has resolved every value "+
		"(at apply, or when a data source is read), so this is a bug in the provider: please report it with the "+
		"plan's output (`terraform plan -out=tfplan && terraform show tfplan`). Nothing was written.")
}

// providerNotConfigured: a resource is used before the provider's Configure ran.
func providerNotConfigured() diag.Diagnostic {
	return diag.NewErrorDiagnostic("Provider Not Configured", "The kratix provider was not configured before the "+
		"resource was used. Terraform configures a provider before it applies its resources, so this is a bug in "+
		"the provider: please report it with the command you ran.")
}

// cannotLayOut: kind ("Promise", "Request") cannot be laid out in its destinations' folders.
func cannotLayOut(kind string, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Cannot Lay Out "+kind, fmt.Sprintf("The %s's files cannot be laid out in "+
		"the folders of its destinations: %v\n\nChange what the message names (a file key, a destination's path "+
		"or filepath_mode) and plan again. Nothing was written.", lower(kind), err))
}

// incompleteDestination: a destination object at at lacks what it needs (needs: "name",
// "name, path and state_store").
func incompleteDestination(at path.Path, needs string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Incomplete Destination", fmt.Sprintf("%s: a destination needs %s; "+
		"pass the destination resources, e.g. destinations = values(kratix_destination.workers).", at, needs))
}

// duplicateDestination: destination name is listed twice, the second time at at.
func duplicateDestination(at path.Path, name string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Duplicate Destination", fmt.Sprintf("%s: destination %q is listed "+
		"twice. List each destination once (a destination's name is its identity in every store).", at, name))
}

// invalidPath: the folder of destination name (at at) is not a clean relative path.
func invalidPath(at path.Path, name string, err error) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Invalid Path", fmt.Sprintf("%s: destination %q: %s. Use a clean path "+
		"relative to the store's path, e.g. \"clusters/dev\", or \".\" for the store's path itself.", at, name, err))
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// fileClaimed: the path at at is claimed by another owner (the collision says which and how).
func fileClaimed(at path.Path, o placement.Owner, dest string, c placement.Collision) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "File Claimed By Another Owner", placement.CollisionDetail(o, dest, c))
}

// importBookkeeping: an import's apply adds the files listed in detail (bookkeepingWarning) beside
// what it found.
func importBookkeeping(detail string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Import Adds Bookkeeping Files", detail)
}

// importRecorded: an import's plan records what it found (importedWarning says what).
func importRecorded(detail string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Import Records Files From The Store", detail)
}

// storeUnreadable: the refresh of objects (every object of this run that found out) could not
// read the store at all; one error stands for them all.
func storeUnreadable(objects []string, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Cannot Read State Store", storeErrorDetail(fmt.Sprintf(
		"The refresh could not read the state store of %s; none of them was refreshed, and this error stands for all of them",
		strings.Join(objects, ", ")), err))
}

// offlineImportWarning is the warning of the first plan after an import when the provider is
// offline: it cannot look for what the stores hold of the object, so it plans it as new.
func offlineImportWarning(diags *diag.Diagnostics, who string) {
	diags.AddWarning("Import Not Looked Up",
		fmt.Sprintf("%s was imported, and the provider is offline (offline = true), so this plan does not look in the "+
			"stores for what they already hold of it: it plans every file as new. Plan with offline removed to adopt "+
			"it where it is.", who))
}

// warnMoveNotFinished says, after an apply, which of a promise's or request's moves (who names
// it) left its files where the destination was (left: what it keeps of them), and that the next
// apply finishes them.
func warnMoveNotFinished(who string, prior map[string]placement.Prior, left privstate.LeftBehind, diags *diag.Diagnostics) {
	for _, dest := range tfvalue.SortedKeys(left) {
		pr := prior[dest]
		diags.AddWarning("Move Not Finished", fmt.Sprintf("%s stays on destination %q where it was (%s, folder %q): "+
			"its files could not be taken from there. The next plan shows the removal left to do, and the next apply makes it.",
			who, dest, pr.Record.Location, pr.Record.Root))
	}
}

// warnLeftBehind says, in a plan, which placements an earlier move left where their destination
// was and that this apply takes them from there (records: the plan's).
func warnLeftBehind(who string, prior map[string]placement.Prior, left map[string]poolMember, records map[string]placement.Record, diags *diag.Diagnostics) {
	for _, dest := range tfvalue.SortedKeys(left) {
		pr, held := prior[dest]
		r, planned := records[dest]
		if !held || !planned || !placement.RecordedAt(pr.Record, left[dest].Member) || placement.RecordedAt(r, left[dest].Member) {
			continue
		}
		diags.AddWarning("Move Not Finished", fmt.Sprintf("%s still has files on destination %q where it was (%s, folder %q), "+
			"left by a move whose removal failed: this apply takes them from there.", who, dest, pr.Record.Location, pr.Record.Root))
	}
}
