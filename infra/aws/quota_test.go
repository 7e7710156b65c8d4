package aws

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/exitcode"
)

// fakeQuota is a vCPU quota of a fixed value, or an error.
type fakeQuota struct {
	limit float64
	err   error
	asked []string
}

func (q *fakeQuota) VCPULimit(_ context.Context, region string) (float64, error) {
	q.asked = append(q.asked, region)
	return q.limit, q.err
}

// runningEC2 answers DescribeInstances with fixed instances; every other
// call of the interface is left unimplemented (nil).
type runningEC2 struct {
	ec2Checks
	instances []types.Instance
}

func (e runningEC2) DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return &ec2.DescribeInstancesOutput{Reservations: []types.Reservation{{Instances: e.instances}}}, nil
}

func instance(typ string, cores, threads int32, tags map[string]string) types.Instance {
	i := types.Instance{InstanceType: types.InstanceType(typ),
		CpuOptions: &types.CpuOptions{CoreCount: aws.Int32(cores), ThreadsPerCore: aws.Int32(threads)}}
	for k, v := range tags {
		i.Tags = append(i.Tags, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	return i
}

// TestCheckQuota: the run (4 × c5.4xlarge = 64 vCPUs) against a quota of
// 96 vCPUs with 40 in use by other standard instances is short; with 128
// it fits. The run's own instances (a resumed Create), spot instances and
// other families do not count as in use.
func TestCheckQuota(t *testing.T) {
	s, _ := readSettings(c5Spec())
	info := map[string]instanceType{"c5.4xlarge": {vcpus: 16}}
	fake := runningEC2{instances: []types.Instance{
		instance("m5.4xlarge", 8, 2, nil),                                       // 16
		instance("c5.4xlarge", 8, 2, nil),                                       // 16
		instance("t3.large", 1, 2, nil),                                         // 2
		instance("r5.xlarge", 2, 2, nil),                                        // 4
		instance("i3.large", 1, 2, nil),                                         // 2 → 40 in all
		instance("c5.4xlarge", 8, 2, map[string]string{"ybbench:run-id": "r1"}), // the run's own
		instance("p3.2xlarge", 4, 2, nil),                                       // a quota of its own
	}}
	spot := instance("c5.4xlarge", 8, 2, nil)
	spot.InstanceLifecycle = types.InstanceLifecycleTypeSpot
	fake.instances = append(fake.instances, spot)

	short := &fakeQuota{limit: 96}
	p := New(Quota(short))
	v := p.checkQuota(context.Background(), fake, "r1", s, info)
	if v.err == nil ||
		!strings.Contains(v.err.Error(), "vCPU quota short in us-east-1: need 64 vCPUs, free 56 (quota L-1216C47A of 96 vCPUs of on-demand standard instances, 40 in use)") {
		t.Errorf("short quota: %+v", v)
	}
	if len(short.asked) != 1 || short.asked[0] != "us-east-1" {
		t.Errorf("quota asked for %v", short.asked)
	}

	enough := &fakeQuota{limit: 128}
	v = New(Quota(enough)).checkQuota(context.Background(), fake, "r1", s, info)
	if v.err != nil || v.warning != "" || v.fact != "need 64, free 88 of 128" {
		t.Errorf("enough quota: %+v", v)
	}
}

// TestCheckQuotaUnknown: a quota that cannot be read is a warning saying
// so, never an error.
func TestCheckQuotaUnknown(t *testing.T) {
	s, _ := readSettings(c5Spec())
	p := New(Quota(&fakeQuota{err: errors.New("NoSuchResourceException")}))
	v := p.checkQuota(context.Background(), runningEC2{}, "", s, map[string]instanceType{"c5.4xlarge": {vcpus: 16}})
	if v.err != nil || !strings.HasPrefix(v.warning, "vCPU quota unknown in us-east-1") || !strings.Contains(v.warning, "needs 64 vCPUs") {
		t.Errorf("unknown quota: %+v", v)
	}
}

func TestStandardFamily(t *testing.T) {
	for typ, want := range map[string]bool{
		"c5.4xlarge": true, "i3.4xlarge": true, "m7i.large": true, "t3.micro": true, "z1d.large": true, "r6g.large": true,
		"p3.2xlarge": false, "g5.xlarge": false, "x2iedn.xlarge": false, "inf1.xlarge": false, "trn1.2xlarge": false,
		"dl1.24xlarge": false, "hpc6a.48xlarge": false, "mac1.metal": false, "": false,
	} {
		if got := standardFamily(typ); got != want {
			t.Errorf("standardFamily(%q) = %v, want %v", typ, got, want)
		}
	}
}

// TestClassify: a short quota alone is exit 3; with bad input besides,
// exit 2, the bad input first; the problems stay separable.
func TestClassify(t *testing.T) {
	short := errors.New("vCPU quota short")
	bad := &infra.SettingError{Setting: "zone", Err: errors.New("not a zone")}
	if err := classify(nil, nil); err != nil {
		t.Errorf("no problem: %v", err)
	}
	if err := classify(nil, []error{short}); exitcode.Of(err) != exitcode.Infra {
		t.Errorf("quota alone: exit %d", exitcode.Of(err))
	}
	err := classify([]error{bad}, []error{short})
	if exitcode.Of(err) != exitcode.Config || err.Error() != "zone: not a zone\nvCPU quota short" {
		t.Errorf("bad input and quota: %q exit %d", err, exitcode.Of(err))
	}
	var j interface{ Unwrap() []error }
	if w, ok := err.(interface{ Unwrap() error }); !ok || !errors.As(w.Unwrap(), &j) || len(j.Unwrap()) != 2 {
		t.Errorf("the problems are not separable: %#v", err)
	}
}
