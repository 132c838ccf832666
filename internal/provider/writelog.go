package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
)

// What an apply writes stays written for the rest of that apply.
//
// The successor list (privstate/successor.go) covers a replacement that deletes the old object first. With
// `lifecycle { create_before_destroy = true }` Terraform does the opposite: it creates the new
// object, updates what depends on it, and only then deletes the old ("deposed") object, in a
// delete that gets the old object's private state and nothing of its successor's. That delete
// would remove every file the new object has just written at the same paths.
//
// So each promise and request carries an instance token in its private state, given at its
// create (or at its first update, for an object created before tokens existed), and the
// provider process keeps a write log: per store location and path, the token of the instance
// whose write last made the store hold it. A delete spares every logged path whose writer is
// another instance, whoever it is: the successor, or any other resource of the same apply.
//
// The log lives in what Configure builds (providerData), so it holds the writes of one command.
// Terraform starts the provider for each command (plan, apply, destroy) and configures it once
// there; terraform-plugin-testing likewise starts its in-process servers afresh for each
// command. A process that serves several commands (a debug server reattached through
// TF_REATTACH_PROVIDERS; internal/tfserver wraps the framework's server and keeps no state
// of its own) is configured again by each command and starts an empty log. Within one command the tokens
// make the rule exact whatever the order: a destroy still removes what its own object wrote,
// even right after that object's create in the same process (the tokens are equal), and spares
// only what another instance wrote.
//
// What the log cannot cover is an apply that stops between the successor's create and the old
// object's destroy (a failure in between): the next command destroys the deposed object with an
// empty log, and its files go until the apply after writes them back, as before.
// (The key is privstate.InstanceKey.)

// readInstance returns the token of the object whose private state this is; "" for an object
// created by a version of the provider without tokens (or before its first write).
func readInstance(ctx context.Context, p privstate.Reader) string {
	if p == nil {
		return ""
	}
	b, d := p.GetKey(ctx, privstate.InstanceKey)
	if d.HasError() || len(b) == 0 {
		return ""
	}
	var token string
	if json.Unmarshal(b, &token) != nil {
		return ""
	}
	return token
}

// ensureInstance returns the object's token, giving it one first if it has none.
func ensureInstance(ctx context.Context, p privstate.State, diags *diag.Diagnostics) string {
	if token := readInstance(ctx, p); token != "" {
		return token
	}
	token := newInstanceID() // the same kind of value as a destination's instance_id
	if p != nil {
		b, _ := json.Marshal(token)
		diags.Append(p.SetKey(ctx, privstate.InstanceKey, b)...)
	}
	return token
}

// destinationWriter is the token under which a destination's canary writes are logged: its
// instance_id, which a replacement changes.
func destinationWriter(instanceID string) string { return destinationPrefix + instanceID }

const destinationPrefix = "destination:"

// writtenByOthers is what this process wrote for anyone but writer (nil when unconfigured).
func (d *providerData) writtenByOthers(writer string) placement.Successor {
	if d == nil {
		return nil
	}
	return d.writes.byOthers(writer)
}

// recordKept notes the files of the destinations a replacement keeps waiting for their wave as
// written by the replacement (writer): it did not write them, but it holds them, and under
// create_before_destroy the deposed object's delete, which comes after, must spare them as it
// spares what the successor wrote (adoptReplaced, adopt_rollout.go).
func (d *providerData) recordKept(records map[string]placement.Record, writer string) {
	if d == nil {
		return
	}
	for loc, paths := range placement.SuccessorHolding(nil, records) {
		d.writes.record(loc, writer, paths)
	}
}

// opPaths are the paths an operation makes its location hold: what it puts and the aggregates
// it rebuilds.
func opPaths(c placement.Change) []string {
	out := make([]string, 0, len(c.Put)+len(c.Aggregates))
	for p := range c.Put {
		out = append(out, p)
	}
	for _, a := range c.Aggregates {
		out = append(out, a.File)
	}
	return out
}
