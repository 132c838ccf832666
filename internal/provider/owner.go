package provider

// The owner: who this provider writes for, across workspaces. Every placement a resource writes
// and every record it publishes names its owner, so that another workspace writing to the same
// store can refuse to take over what is not its own, and a human reading the store can tell whose
// files these are. The owner comes from the provider block's `owner`, else from KRATIX_OWNER,
// else from the HCP Terraform workspace the run belongs to (TFC_WORKSPACE_NAME, which HCP
// Terraform sets in every remote run and agent run); a local run with none of them is the
// unnamed owner, which every other unnamed run shares.

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const (
	ownerEnv        = "KRATIX_OWNER"
	hcpWorkspaceEnv = "TFC_WORKSPACE_NAME"
	maxOwnerLen     = 128
)

func ownerSchema() schema.Attribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Who this configuration writes for, as other workspaces on the same stores see it " +
			"(for example `platform-eu` or `fleet-team/prod`): every placement it writes and every record it " +
			"publishes names this owner, and a plan in another workspace that would write, prune or delete a " +
			"path this owner holds is refused, naming both. Unset, it is the environment variable `" + ownerEnv +
			"`, else the HCP Terraform workspace's name in a remote or agent run (`" + hcpWorkspaceEnv + "`), else " +
			"the unnamed owner, which every unnamed local run shares. Keep it stable for the life of the " +
			"workspace: it is how the stores know the workspace. At most " + fmt.Sprint(maxOwnerLen) +
			" printable characters.",
	}
}

// ownerFrom reads the owner (see the top of this file); diagnostics for an owner that cannot be
// written into a record.
func ownerFrom(v types.String, lookupEnv func(string) (string, bool), diags *diag.Diagnostics) string {
	owner, from := v.ValueString(), path.Root("owner")
	if v.IsNull() || v.IsUnknown() {
		for _, env := range []string{ownerEnv, hcpWorkspaceEnv} {
			if s, ok := lookupEnv(env); ok && strings.TrimSpace(s) != "" {
				owner = strings.TrimSpace(s)
				break
			}
		}
	}
	if msg := checkOwner(owner); msg != "" {
		diags.AddAttributeError(from, "Invalid Owner", fmt.Sprintf("The owner %q %s. Give the provider an owner "+
			"such as \"platform-eu\" (owner = \"platform-eu\" in the provider block, or %s in the environment).",
			owner, msg, ownerEnv))
	}
	return owner
}

func checkOwner(owner string) string {
	if len(owner) > maxOwnerLen {
		return fmt.Sprintf("is %d bytes long, more than %d", len(owner), maxOwnerLen)
	}
	if strings.TrimSpace(owner) != owner {
		return "starts or ends with a space"
	}
	for _, r := range owner {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("holds the character %q, which is not printable", r)
		}
	}
	return ""
}
