package parts

import (
	"context"
	"log/slog"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/infra/aws"
	"github.com/ybbench/ybbench/infra/gcp"
	"github.com/ybbench/ybbench/infra/inventory"
	"github.com/ybbench/ybbench/infra/local"
	"github.com/ybbench/ybbench/infra/terraform"
	"github.com/ybbench/ybbench/provision"
	"github.com/ybbench/ybbench/provision/cassandra"
	"github.com/ybbench/ybbench/provision/postgres"
	"github.com/ybbench/ybbench/provision/yugabyte"
)

// Builtin is the registry of the parts in this version. Its order is the
// order of preference and of every list shown to the user: local before
// inventory (a run on this machine needs no file), and postgres and
// cassandra, which run here, before yugabyte, which needs a tarball.
func Builtin() *Registry {
	return &Registry{
		Providers: []Provider{
			{Name: local.ProviderName, Traits: local.ProviderTraits(), New: newLocal},
			{Name: inventory.ProviderName, Traits: inventory.ProviderTraits(),
				New: func(o ProviderOptions) (infra.Provider, error) { return inventory.New(o.Inventory), nil }},
			{Name: aws.ProviderName, Traits: aws.ProviderTraits(), New: newAWS,
				Cloud:   &CloudDefaults{Region: aws.DefaultRegion, Zone: aws.DefaultZone, Image: aws.DefaultImage},
				Janitor: newAWSJanitor},
			{Name: gcp.ProviderName, Traits: gcp.ProviderTraits(), New: newGCP,
				Cloud:   &CloudDefaults{Region: gcp.DefaultRegion, Zone: gcp.DefaultZone, Image: gcp.DefaultImage},
				Janitor: newGCPJanitor},
		},
		Flavors: []Flavor{
			{Name: postgres.Name, Product: "PostgreSQL", Traits: postgres.FlavorTraits(),
				New: func(*slog.Logger) provision.Flavor { return &postgres.Flavor{} }},
			{Name: cassandra.Name, Product: "Apache Cassandra", Traits: cassandra.FlavorTraits(), New: func(log *slog.Logger) provision.Flavor {
				if log == nil {
					return cassandra.New()
				}
				return cassandra.New(cassandra.WithLogger(log))
			}},
			{Name: yugabyte.Name, Product: "YugabyteDB", Traits: yugabyte.FlavorTraits(),
				New: func(*slog.Logger) provision.Flavor { return yugabyte.New() }},
		},
	}
}

// newLocal makes the local provider with the Terraform found on this
// machine. Not finding one is not an error here: a teardown sweeps what
// Terraform made without it, and Create reports it (exit 2).
func newLocal(o ProviderOptions) (infra.Provider, error) {
	var opts []local.Option
	if o.Log != nil {
		opts = append(opts, local.Logger(o.Log))
	}
	if tf, err := terraform.FindBinary(""); err == nil {
		opts = append(opts, local.TerraformBinary(tf))
	}
	return local.New(opts...), nil
}

// newAWSJanitor makes the aws janitor of o's region (a missing region is
// a *infra.SettingError naming it).
func newAWSJanitor(ctx context.Context, o JanitorOptions) (infra.Janitor, error) {
	j, err := aws.NewJanitor(ctx, o.Region, aws.JanitorLogger(o.Log))
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return j, nil
}

// newGCPJanitor makes the gcp janitor of o's project (a missing project
// is a *infra.SettingError naming it), restricted to o's region when one
// is given.
func newGCPJanitor(ctx context.Context, o JanitorOptions) (infra.Janitor, error) {
	var opts []gcp.JanitorOption
	if o.Log != nil {
		opts = append(opts, gcp.JanitorLogger(o.Log))
	}
	if o.Region != "" {
		opts = append(opts, gcp.JanitorRegion(o.Region))
	}
	return gcp.NewJanitor(ctx, o.Project, opts...)
}

// newAWS makes the aws provider with the Terraform found on this machine
// (not finding one is reported by its Check, exit 2) and the SDK's default
// configuration (credentials and endpoints as every AWS tool finds them).
func newAWS(o ProviderOptions) (infra.Provider, error) {
	var opts []aws.Option
	if o.Log != nil {
		opts = append(opts, aws.Logger(o.Log))
	}
	if tf, err := terraform.FindBinary(""); err == nil {
		opts = append(opts, aws.TerraformBinary(tf))
	}
	return aws.New(opts...), nil
}

// newGCP makes the gcp provider with the Terraform found on this machine
// (not finding one is reported by its check) and Application Default
// Credentials, which it looks for when it first needs them.
func newGCP(o ProviderOptions) (infra.Provider, error) {
	var opts []gcp.Option
	if o.Log != nil {
		opts = append(opts, gcp.Logger(o.Log))
	}
	if tf, err := terraform.FindBinary(""); err == nil {
		opts = append(opts, gcp.TerraformBinary(tf))
	}
	return gcp.New(opts...), nil
}
