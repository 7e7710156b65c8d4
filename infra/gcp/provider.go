package gcp

import (
	"io/fs"
	"log/slog"
	"time"

	"google.golang.org/api/option"

	"github.com/ybbench/ybbench/infra"
	modules "github.com/ybbench/ybbench/terraform"
)

// TeardownLimit bounds a teardown on gcp: terraform destroy waits for each
// instance's deletion and then for the firewalls, subnetwork and network,
// operations that take minutes each.
const TeardownLimit = 30 * time.Minute

// MaxHosts bounds each role's host count. The module takes any number; the
// bound is ybbench's, against a typo that would start (and bill) a fleet:
// the published setup is 3 db hosts and 1 client.
const MaxHosts = 32

// Provider makes and removes a run's hosts on Compute Engine.
type Provider struct {
	terraformBin string
	module       fs.FS
	log          *slog.Logger
	// clientOpts, when set, are the Compute clients' options instead of
	// Application Default Credentials (tests: a local server's endpoint).
	clientOpts []option.ClientOption
	// now is the clock runs are dated by.
	now func() time.Time
}

var (
	_ infra.Provider = (*Provider)(nil)
	_ infra.Checker  = (*Provider)(nil)
)

// Option configures a Provider.
type Option func(*Provider)

// Logger sets the logger (default: discard).
func Logger(l *slog.Logger) Option { return func(p *Provider) { p.log = l } }

// TerraformBinary sets the terraform executable (else $YBBENCH_TERRAFORM,
// else PATH).
func TerraformBinary(path string) Option { return func(p *Provider) { p.terraformBin = path } }

// Module replaces the embedded terraform/gcp (for trying out a modified
// module from a checkout: os.DirFS("terraform/gcp")).
func Module(m fs.FS) Option { return func(p *Provider) { p.module = m } }

// ClientOptions replaces how the Compute API is reached: by default with
// Application Default Credentials at compute.googleapis.com; tests give
// option.WithEndpoint(a local server's URL) and
// option.WithoutAuthentication(). Terraform's google provider is not
// affected: it finds credentials on its own.
func ClientOptions(opts ...option.ClientOption) Option {
	return func(p *Provider) { p.clientOpts = append([]option.ClientOption{}, opts...) }
}

// New returns the gcp provider. It makes no API call and looks for no
// credentials: Check, Create and Destroy do.
func New(opts ...Option) *Provider {
	p := &Provider{module: modules.GCP(), log: slog.New(slog.DiscardHandler), now: time.Now}
	for _, f := range opts {
		f(p)
	}
	p.log = p.log.With("provider", ProviderName)
	return p
}

// Name returns "gcp".
func (p *Provider) Name() string { return ProviderName }

// Traits: see ProviderTraits.
func (p *Provider) Traits() infra.Traits { return ProviderTraits() }

// ProviderTraits are the gcp provider's traits, known without making one:
// hosts are made for the run and destroyed with it; they are still
// booting when Create returns (cloud-init runs after Terraform's apply);
// nothing needs root on this machine; 1 to MaxHosts hosts of each role;
// a teardown may take TeardownLimit.
func ProviderTraits() infra.Traits {
	return infra.Traits{
		DBHosts:       infra.Range{Min: 1, Max: MaxHosts},
		ClientHosts:   infra.Range{Min: 1, Max: MaxHosts},
		TeardownLimit: TeardownLimit,
	}
}
