package aws

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"

	"github.com/ybbench/ybbench/infra/cloudtag"
)

// vcpuQuota is where a region's limit of vCPUs of running on-demand
// standard instances comes from.
type vcpuQuota interface {
	VCPULimit(ctx context.Context, region string) (float64, error)
}

// The Service Quotas quota "Running On-Demand Standard (A, C, D, H, I, M,
// R, T, Z) instances", counted in vCPUs (cloud.md §4.2, K3): c5 and i3
// both count against it.
const (
	quotaService = "ec2"
	quotaCode    = "L-1216C47A"
)

// serviceQuotas reads the quota from AWS Service Quotas.
type serviceQuotas struct{ config ConfigFunc }

// VCPULimit returns the quota's value applied to the account, or AWS's
// default when none is applied (GetServiceQuota then answers
// NoSuchResourceException).
func (q serviceQuotas) VCPULimit(ctx context.Context, region string) (float64, error) {
	cfg, err := q.config(ctx, region)
	if err != nil {
		return 0, err
	}
	c := servicequotas.NewFromConfig(cfg)
	in := &servicequotas.GetServiceQuotaInput{ServiceCode: aws.String(quotaService), QuotaCode: aws.String(quotaCode)}
	out, err := c.GetServiceQuota(ctx, in)
	if err == nil && out.Quota != nil && out.Quota.Value != nil {
		return *out.Quota.Value, nil
	}
	var none *sqtypes.NoSuchResourceException
	if err != nil && !errors.As(err, &none) {
		return 0, fmt.Errorf("GetServiceQuota %s/%s: %w", quotaService, quotaCode, err)
	}
	def, derr := c.GetAWSDefaultServiceQuota(ctx, &servicequotas.GetAWSDefaultServiceQuotaInput{
		ServiceCode: aws.String(quotaService), QuotaCode: aws.String(quotaCode)})
	switch {
	case derr != nil && err != nil:
		return 0, fmt.Errorf("GetServiceQuota %s/%s: %v; GetAWSDefaultServiceQuota: %w", quotaService, quotaCode, err, derr)
	case derr != nil:
		return 0, fmt.Errorf("GetAWSDefaultServiceQuota %s/%s: %w", quotaService, quotaCode, derr)
	case def.Quota == nil || def.Quota.Value == nil:
		return 0, fmt.Errorf("GetAWSDefaultServiceQuota %s/%s: no value", quotaService, quotaCode)
	}
	return *def.Quota.Value, nil
}

// quotaVerdict is what the quota check found: a fact to record, a warning
// when the quota could not be read, an error when it is short (exit 3,
// classified by check with the other problems).
type quotaVerdict struct {
	fact, warning string
	err           error
}

// judgeQuota compares the run's need with what the quota leaves free.
// A quota that cannot be read (limitErr) is a warning, not an error: the
// run may well fit, and AWS refuses a launch over quota by itself (moto
// has no EC2 quota at all).
func judgeQuota(region string, need, used, limit float64, limitErr error) quotaVerdict {
	if limitErr != nil {
		w := fmt.Sprintf("vCPU quota unknown in %s (%s/%s: %v): the run needs %s vCPUs of on-demand standard instances",
			region, quotaService, quotaCode, limitErr, num(need))
		return quotaVerdict{fact: "unknown; need " + num(need), warning: w}
	}
	free := max(limit-used, 0)
	if need > free {
		return quotaVerdict{err: fmt.Errorf(
			"vCPU quota short in %s: need %s vCPUs, free %s (quota %s of %s vCPUs of on-demand standard instances, %s in use); "+
				"ask AWS for more in Service Quotas, or wait for running instances to end", region, num(need), num(free), quotaCode, num(limit), num(used))}
	}
	return quotaVerdict{fact: fmt.Sprintf("need %s, free %s of %s", num(need), num(free), num(limit))}
}

// num formats a vCPU count (quotas are float64; counts are whole).
func num(v float64) string { return fmt.Sprintf("%g", v) }

// standardFamily reports whether an instance type counts against the
// standard quota: families starting with A, C, D, H, I, M, R, T or Z,
// except those with quotas of their own (inf, dl, trn, hpc, mac). An
// approximation of AWS's list, good for the types a benchmark uses.
func standardFamily(instanceType string) bool {
	family, _, _ := strings.Cut(instanceType, ".")
	if family == "" || !strings.ContainsRune("acdhimrtz", rune(family[0])) {
		return false
	}
	for _, own := range []string{"inf", "dl", "trn", "hpc", "mac"} {
		if strings.HasPrefix(family, own) {
			return false
		}
	}
	return true
}

// vcpusInUse counts the vCPUs of the region's pending and running
// on-demand standard instances, except the run's own (a resumed Create
// finds them running, and they need no new quota).
func vcpusInUse(ctx context.Context, c ec2Checks, runID string) (float64, error) {
	pages := ec2.NewDescribeInstancesPaginator(c, &ec2.DescribeInstancesInput{Filters: []types.Filter{
		{Name: aws.String("instance-state-name"), Values: []string{"pending", "running"}},
	}})
	var used float64
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return 0, fmt.Errorf("DescribeInstances: %w", err)
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				if i.InstanceLifecycle == types.InstanceLifecycleTypeSpot || !standardFamily(string(i.InstanceType)) {
					continue
				}
				if runID != "" && tagMap(i.Tags)[cloudtag.TagRunID] == runID {
					continue
				}
				if o := i.CpuOptions; o != nil && o.CoreCount != nil && o.ThreadsPerCore != nil {
					used += float64(*o.CoreCount * *o.ThreadsPerCore)
				}
			}
		}
	}
	return used, nil
}
