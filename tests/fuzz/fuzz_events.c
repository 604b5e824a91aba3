// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_events.c — libFuzzer target of the -e parser, parse_events(), on a
 * new evlist. The input is the event string (up to the first NUL).
 * Tracepoint terms read tracefs (the events directory and the id files): the host's, and
 * only read. A string that fails must add nothing; one that parses adds
 * evsels with names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precord/evlist.h"
#include "precord/parse-events.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_events_error err;
	struct evlist *evlist = evlist__new();
	struct evsel *evsel;
	char *str = strndup((const char *)data, size);
	int i;

	fuzz__check(evlist && str, "out of memory");
	if (parse_events(evlist, str, &err)) {
		fuzz__check(evlist->nr_entries == 0, "a failed string added evsels");
		fuzz__check(memchr(err.msg, 0, sizeof(err.msg)) != NULL, "an unterminated message");
	} else {
		evlist__for_each_evsel(evlist, evsel, i)
			fuzz__check(evsel->name && evsel->name[0], "an evsel without a name");
	}
	evlist__delete(evlist);
	free(str);
	return 0;
}
