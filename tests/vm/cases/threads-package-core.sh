# --threads=package and --threads=core: one streaming thread per package and
# per core, each with that package's or core's CPUs.
guest() {
	run pkg "$PRECORD" $MAPS --threads=package -a -F 1000 -e cpu-clock -o "$D/pkg.data" -- "$SPIN" 1
	run core "$PRECORD" $MAPS --threads=core -a -F 1000 -e cpu-clock -o "$D/core.data" -- "$SPIN" 1
}

check() {
	local m
	for m in pkg core; do
		want_rc $m
		read_clean "$D/$m.data" $m
		want_all_cpus $m
	done
	topology_groups package_cpus_list | want_threads pkg
	topology_groups core_cpus_list | want_threads core
	note "$(threads pkg | wc -l) package threads, $(threads core | wc -l) core threads"
}
