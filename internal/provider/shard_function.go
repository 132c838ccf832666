package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

var _ function.Function = (*shardFunction)(nil)

// maxShards bounds shard's second argument: a fleet split over more workspaces than this is not
// what the function is for, and the cost is one hash per shard.
const maxShards = 10000

// NewShardFunction is provider::kratix::shard.
func NewShardFunction() function.Function { return &shardFunction{} }

type shardFunction struct{}

func (f *shardFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "shard"
}

func (f *shardFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Which of N shards a destination belongs to",
		MarkdownDescription: "Returns the shard, from 0 to `shards - 1`, of the destination called `name`, by rendezvous " +
			"hashing: the same answer on every machine and in every run, names spread evenly, and going from N shards " +
			"to N+1 moves only about 1/(N+1) of the names, every one of them to the new shard. Split a fleet over N " +
			"workspaces with it, each keeping the destinations of its own shard, `[for d in data.kratix_destinations.all.destinations : " +
			"d if provider::kratix::shard(d.name, 4) == 2]`, so that the same promise can be managed per shard without " +
			"two workspaces writing one destination; adding a workspace moves only what the new one takes over. " +
			"Provider functions need Terraform 1.8 or later (OpenTofu 1.7 or later).",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "name", MarkdownDescription: "The destination's name."},
			function.Int64Parameter{Name: "shards", MarkdownDescription: fmt.Sprintf("How many shards, 1 to %d.", maxShards)},
		},
		Return: function.Int64Return{},
	}
}

func (f *shardFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	var shards int64
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &name, &shards))
	if resp.Error != nil {
		return
	}
	if shards < 1 || shards > maxShards {
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("shards is %d; it must be 1 to %d", shards, maxShards))
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, int64(scheduling.Shard(name, int(shards)))))
}
