package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"

	"github.com/ybbench/ybbench/infra"
)

// ssmAPI is the SSM call that resolves an image parameter.
type ssmAPI interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// imageErr is a problem with the image setting.
func imageErr(format string, args ...any) error {
	return &infra.SettingError{Setting: infra.OptionImage, Err: fmt.Errorf(format, args...)}
}

// resolveImage turns the image setting into an available AMI id of the
// region: an ssm:<path> setting through the parameter's value, then
// DescribeImages. archs are the architectures the run's types support
// (nil: not known); an image of another architecture is refused, as the
// launch would be.
func resolveImage(ctx context.Context, c ec2Checks, s ssmAPI, region, image string, archs []string) (string, error) {
	ami, from := image, ""
	if path, ok := strings.CutPrefix(image, ssmPrefix); ok {
		out, err := s.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(path)})
		var nf *ssmtypes.ParameterNotFound
		switch {
		case errors.As(err, &nf):
			return "", imageErr("SSM parameter %s not found in %s", path, region)
		case err != nil:
			return "", imageErr("SSM parameter %s: %w", path, err)
		case out.Parameter == nil:
			return "", imageErr("SSM parameter %s: no value", path)
		}
		ami, from = strings.TrimSpace(aws.ToString(out.Parameter.Value)), " (the value of SSM parameter "+path+")"
		if !amiPattern.MatchString(ami) {
			return "", imageErr("SSM parameter %s holds %q, not an AMI id", path, ami)
		}
	}
	out, err := c.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: []string{ami}})
	var ae smithy.APIError
	switch {
	case errors.As(err, &ae) && strings.HasPrefix(ae.ErrorCode(), "InvalidAMIID"):
		return "", imageErr("AMI %s%s does not exist in %s", ami, from, region)
	case err != nil:
		return "", imageErr("AMI %s%s: %w", ami, from, err)
	case len(out.Images) == 0:
		return "", imageErr("AMI %s%s does not exist in %s", ami, from, region)
	}
	img := out.Images[0]
	if img.State != "" && img.State != types.ImageStateAvailable {
		return "", imageErr("AMI %s%s is %s, not available", ami, from, img.State)
	}
	if a := string(img.Architecture); a != "" && archs != nil && !slices.Contains(archs, a) {
		return "", imageErr("AMI %s%s is for %s; the run's instance types take %s", ami, from, a, strings.Join(archs, ", "))
	}
	return ami, nil
}
