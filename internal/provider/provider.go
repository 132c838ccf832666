package provider

import (
	"context"
	"os"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/guardattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/promise-platform/kratix"

var (
	_ provider.Provider              = (*kratixProvider)(nil)
	_ provider.ProviderWithFunctions = (*kratixProvider)(nil)
)

type kratixProvider struct {
	version string
	// lookupEnv reads the environment; tests replace it.
	lookupEnv func(string) (string, bool)
	// configured is what Configure gave the resources, for the requests the fast path answers
	// itself (fast_path.go).
	configured atomic.Pointer[providerData]
	// now is the clock plans and applies read (providerData.clock); tests replace it.
	now func() time.Time
}

// NewServer returns the constructor of the provider's protocol server at the given version, the
// one main.go serves: terraform-plugin-framework's server for this provider, with the steady
// state, creates and validation of promises, destinations and requests answered without the
// framework's per-value walks (fast_path.go, internal/tfserver).
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		s, err := newFastServer(version)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func newProvider(version string) *kratixProvider {
	return &kratixProvider{version: version, lookupEnv: os.LookupEnv, now: time.Now}
}

type providerModel struct {
	Secrets        types.Map    `tfsdk:"secrets"`
	ContentHashKey types.String `tfsdk:"content_hash_key"`
	Offline        types.Bool   `tfsdk:"offline"`
	DestroyAcks    types.Set    `tfsdk:"destroy_acknowledgements"`
	Owner          types.String `tfsdk:"owner"`
}

func (p *kratixProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kratix"
	resp.Version = p.version
}

func (p *kratixProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Schedules Kratix Promises to Destinations during `terraform plan` and writes their " +
			"files into State Stores (S3-compatible buckets and Git repositories) during `terraform apply`, " +
			"in Kratix's folder layout, with no Kubernetes platform cluster.",
		Attributes: map[string]schema.Attribute{
			"secrets":                  storeconfig.SecretsSchema(),
			"content_hash_key":         contentHashKeySchema(),
			"offline":                  offlineSchema(),
			"destroy_acknowledgements": guardattr.DestroyAcksSchema(),
			"owner":                    ownerSchema(),
		},
	}
}

// Configure records the secrets and the offline switch, nothing else: no store is dialled here, because the provider
// block may depend on values that are only known after apply. Clients are built on first use.
func (p *kratixProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	data := &providerData{
		lookupEnv:    p.lookupEnv,
		processState: processState{pool: statestore.NewPool()},
		offline:      offlineFrom(cfg.Offline),
		now:          p.now,
	}
	data.configureSecrets(ctx, cfg.Secrets, &resp.Diagnostics)
	data.hashKey, data.hashKeyUnknown = cfg.ContentHashKey.ValueString(), cfg.ContentHashKey.IsUnknown()
	data.destroyAcks = guardattr.DestroyAcksFrom(ctx, cfg.DestroyAcks, &resp.Diagnostics)
	data.owner = ownerFrom(cfg.Owner, p.lookupEnv, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if data.offline {
		offlineNotice(cfg.Offline, &resp.Diagnostics)
	}
	resp.ResourceData = data
	resp.DataSourceData = data
	p.configured.Store(data)
}

func (p *kratixProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewStateStoreResource,
		NewDestinationResource,
		NewPromiseResource,
		NewRequestResource,
	}
}

func (p *kratixProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{NewPlacementDataSource, NewDestinationsDataSource, NewPromiseDataSource}
}

func (p *kratixProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{NewMatchesFunction, NewShardFunction}
}
