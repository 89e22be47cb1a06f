package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes, written as a number with an
// optional unit: 1048576, 512KiB, 64MiB, 1GiB (or K, M, G, KB, MB, GB,
// all powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return formatSize(int64(*b)) }

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffixes []string
		mult     int64
	}{
		{[]string{"GiB", "GB", "G"}, 1 << 30},
		{[]string{"MiB", "MB", "M"}, 1 << 20},
		{[]string{"KiB", "KB", "K"}, 1 << 10},
		{[]string{"B"}, 1},
	} {
		for _, suf := range u.suffixes {
			if rest, ok := strings.CutSuffix(t, suf); ok {
				t, mult = strings.TrimSpace(rest), u.mult
				goto parsed
			}
		}
	}
parsed:
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (want a positive number of bytes, or e.g. 64MiB)", s)
	}
	return n * mult, nil
}

func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}
