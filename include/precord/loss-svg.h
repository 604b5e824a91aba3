/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loss-svg.h — the loss timeline: `precord report --loss --svg FILE.svg`
 * draws, per CPU, when records were lost over a recording.
 */
#ifndef PRECORD_LOSS_SVG_H
#define PRECORD_LOSS_SVG_H

#include <stdio.h>
#include "precord/report.h"

/* Write r's loss timeline as one SVG document to out. 0, or -EIO when out failed. */
int loss_svg__write(const struct loss_report *r, FILE *out);

#endif /* PRECORD_LOSS_SVG_H */
