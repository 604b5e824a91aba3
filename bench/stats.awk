# The statistics the bench scripts' summaries share: their awk programs
# start with this text (STATS_AWK in each script).

# med(a, n): the median of a[1..n]; sorts a.
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}

# medrange(a, n, fmt): "median [min–max]" of a[1..n], each printed with fmt.
function medrange(a, n, fmt,   i, lo, hi) {
	lo = 1e30; hi = -1e30
	for (i = 1; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
	return sprintf(fmt " [" fmt "–" fmt "]", med(a, n), lo, hi)
}
