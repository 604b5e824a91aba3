# A cgroup v2 cpuset of one CPU of every node with CPUs: as the cpuset case,
# with no node left wholly outside the cpuset.
. "$TOP/tests/vm/cases/cpuset.sh"

guest() {
	every_node_cpus >"$D/cpuset"
	cpuset_guest
}
