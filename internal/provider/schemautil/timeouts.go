package schemautil

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// DefaultTimeout bounds one create, read, update or delete when the resource's `timeouts` block
// does not say otherwise. It ends the operation's context, and every store call, retry and wait
// under the operation ends with it (the stores take no deadline of their own but a dial's).
const DefaultTimeout = 10 * time.Minute

// Operations, as the `timeouts` block names them.
const (
	OpCreate = "create"
	OpRead   = "read"
	OpUpdate = "update"
	OpDelete = "delete"
)

// TimeoutsBlock is the `timeouts` block of a resource that talks to stores; ops lists the
// operations that do, and so may be bounded. A block (not an attribute) because that is how
// Terraform users write it elsewhere: `timeouts { create = "20m" }`.
func TimeoutsBlock(ctx context.Context, ops ...string) schema.Block {
	opts := timeouts.Opts{}
	for _, op := range ops {
		d := fmt.Sprintf("How long %s may take, as a Go duration such as `30s`, `20m` or `1h`. Default `%s`.",
			timeoutVerbs[op], shortDuration(DefaultTimeout))
		switch op {
		case OpCreate:
			opts.Create, opts.CreateDescription = true, d
		case OpRead:
			opts.Read, opts.ReadDescription = true, d+" Read runs at every refresh, so during `terraform plan` too."
		case OpUpdate:
			opts.Update, opts.UpdateDescription = true, d
		case OpDelete:
			opts.Delete, opts.DeleteDescription = true, d+" Terraform destroys with the value saved in state: "+
				"apply a change to it before the destroy that needs it."
		}
	}
	b, ok := timeouts.Block(ctx, opts).(schema.SingleNestedBlock)
	if !ok {
		panic("timeouts.Block is no longer a SingleNestedBlock")
	}
	b.MarkdownDescription = fmt.Sprintf("Time limits of the operations that talk to the stores; each is `%s` "+
		"unless set. An operation that runs out of time stops its store calls and fails, naming the limit.",
		shortDuration(DefaultTimeout))
	for name, a := range b.Attributes {
		s, ok := a.(schema.StringAttribute)
		if !ok {
			continue
		}
		s.Validators = append(s.Validators, positiveDuration{})
		b.Attributes[name] = s
	}
	return b
}

var timeoutVerbs = map[string]string{
	OpCreate: "creating the resource", OpRead: "reading it back from the stores",
	OpUpdate: "updating it", OpDelete: "destroying it",
}

// AttributeGetter is a plan or a state.
type AttributeGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// StartOp bounds one operation of a resource by its `timeouts` block in src (the plan for create
// and update, the state for read and delete). Defer the returned function: it releases the
// context and, when the operation failed because its time ran out, adds an error that names the
// limit and how to raise it, beside the store errors that say where it stopped.
func StartOp(ctx context.Context, src AttributeGetter, typeName, op string, diags *diag.Diagnostics) (context.Context, func()) {
	var tv timeouts.Value
	var limit time.Duration
	var d diag.Diagnostics
	if d = src.GetAttribute(ctx, path.Root("timeouts"), &tv); !d.HasError() {
		switch op {
		case OpCreate:
			limit, d = tv.Create(ctx, DefaultTimeout)
		case OpRead:
			limit, d = tv.Read(ctx, DefaultTimeout)
		case OpUpdate:
			limit, d = tv.Update(ctx, DefaultTimeout)
		case OpDelete:
			limit, d = tv.Delete(ctx, DefaultTimeout)
		}
	}
	if d.HasError() || limit <= 0 {
		// A state written before the block existed, or a value the validators let through:
		// the default applies.
		limit = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	return ctx, func() {
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		if !timedOut || !diags.HasError() {
			return
		}
		var name types.String
		_ = src.GetAttribute(ctx, path.Root("name"), &name)
		raise := DefaultTimeout
		if limit >= DefaultTimeout {
			raise = 2 * limit
		}
		diags.AddAttributeError(path.Root("timeouts").AtName(op), "Operation Timed Out",
			fmt.Sprintf("%s %q: the %s did not finish within its %s timeout of %s (timeouts.%s; default %s), and "+
				"stopped where the errors above say. Check that the stores can be reached, then raise the limit, "+
				"e.g. timeouts { %s = %q }, and run Terraform again: the next plan shows what is left to do.",
				typeName, name.ValueString(), op, op, limit, op, shortDuration(DefaultTimeout), op, shortDuration(raise)))
	}
}

// shortDuration spells whole minutes as Terraform users write them ("10m", not "10m0s").
func shortDuration(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// positiveDuration refuses a limit of zero or less, which would fail every operation at once.
type positiveDuration struct{}

func (positiveDuration) Description(context.Context) string {
	return "must be a duration greater than zero"
}

func (v positiveDuration) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (positiveDuration) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil {
		return // the block's own validator reports it
	}
	if d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Timeout",
			fmt.Sprintf("%q is not a time limit: give a duration greater than zero, such as \"20m\".", req.ConfigValue.ValueString()))
	}
}
