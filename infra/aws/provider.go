package aws

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ybbench/ybbench/infra"
	modules "github.com/ybbench/ybbench/terraform"
)

// Provider makes and removes a run's hosts on EC2.
type Provider struct {
	terraformBin string
	module       fs.FS
	log          *slog.Logger
	config       ConfigFunc
	quota        vcpuQuota
	// random is what host keys are made from (nil: crypto/rand); tests
	// set it to get the same keys every time.
	random io.Reader
	// ec2, when set, is what Destroy's check for remains asks instead of
	// a client of the region's configuration (tests: a fake account).
	ec2 janitorEC2
}

var (
	_ infra.Provider = (*Provider)(nil)
	_ infra.Checker  = (*Provider)(nil)
)

// ConfigFunc returns the AWS SDK configuration for a region: credentials,
// endpoints, retries.
type ConfigFunc func(ctx context.Context, region string) (aws.Config, error)

// Option configures a Provider.
type Option func(*Provider)

// Logger sets the logger (default: discard).
func Logger(l *slog.Logger) Option { return func(p *Provider) { p.log = l } }

// TerraformBinary sets the terraform executable (else $YBBENCH_TERRAFORM,
// else PATH).
func TerraformBinary(path string) Option { return func(p *Provider) { p.terraformBin = path } }

// Module replaces the embedded terraform/aws (for trying out a modified
// module from a checkout: os.DirFS("terraform/aws")).
func Module(m fs.FS) Option { return func(p *Provider) { p.module = m } }

// Config replaces how the SDK configuration is loaded (default:
// DefaultConfig). Tests point it at a local emulator.
func Config(f ConfigFunc) Option { return func(p *Provider) { p.config = f } }

// Quota replaces where the vCPU quota is read (default: Service Quotas,
// through the configuration of the region asked about).
func Quota(q vcpuQuota) Option { return func(p *Provider) { p.quota = q } }

// New returns the aws provider.
func New(opts ...Option) *Provider {
	p := &Provider{module: modules.AWS(), log: slog.New(slog.DiscardHandler)}
	for _, f := range opts {
		f(p)
	}
	if p.config == nil {
		p.config = DefaultConfig(p.log)
	}
	if p.quota == nil {
		p.quota = serviceQuotas{config: p.config}
	}
	p.log = p.log.With("provider", ProviderName)
	return p
}

// Name returns "aws".
func (p *Provider) Name() string { return ProviderName }

// Traits: see ProviderTraits.
func (p *Provider) Traits() infra.Traits { return ProviderTraits() }

// TeardownLimit bounds a teardown on aws: terraform destroy waits for
// every instance to terminate and then for the network to go, which
// takes minutes and, with a DependencyViolation retried, can take many.
const TeardownLimit = 30 * time.Minute

// MaxHosts bounds each role's host count. The module itself takes any
// number; the bound is ybbench's, against a typo that would launch (and
// bill) a fleet: the published setups use 3 db hosts and 1 client.
const MaxHosts = 32

// ProviderTraits are the aws provider's traits, known without making one:
// hosts are made for the run and destroyed with it; they are still
// booting when Create returns (cloud-init runs after Terraform's apply);
// nothing needs root on this machine; 1 to MaxHosts hosts of each role.
func ProviderTraits() infra.Traits {
	return infra.Traits{
		DBHosts:       infra.Range{Min: 1, Max: MaxHosts},
		ClientHosts:   infra.Range{Min: 1, Max: MaxHosts},
		TeardownLimit: TeardownLimit,
	}
}
