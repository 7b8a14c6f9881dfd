/* SPDX-License-Identifier: MIT */
/* close_proximity: the "parallel close proximity" experiment of Gottschalk,
 * Lin and Manocha (OBBTree, SIGGRAPH 1996; Manocha's lecture slides): two
 * concentric spheres, one inside the other, separated by a gap. As the gap
 * shrinks, the hierarchies must be descended deeper before every pair of
 * volumes is bounded apart. The slides' argument: a sphere or an axis-aligned
 * box around a patch of size s sticks out of the surface by about s (linear
 * convergence), an oriented box by about s^2 (quadratic convergence), so on a
 * 2D surface the BV tests grow as gap^-2 for spheres and AABBs and as gap^-1
 * for OBBs.
 *
 * Model: a UV sphere of radius 1 (prox_mesh_sphere) inside the same
 * tessellation scaled so that every point of its facets is at least 1 + gap
 * from the centre. A tessellated sphere's facets lie inside the true sphere
 * by up to the sagitta, so the outer mesh is scaled by (1 + gap) r / h, where
 * r is the inner mesh's largest vertex radius and h the smallest distance
 * from the centre to a facet plane of the unit mesh (a lower bound on the
 * distance to the facet). The two surfaces are then at least `gap` apart for
 * every rotation about the common centre, which every query confirms (all
 * pairs, zero found).
 *
 * For each gap (log-spaced) and each volume kind and SAT variant, both
 * meshes get independent uniformly random rotations (Shoemake), the same set
 * for every gap and kind. Reported per query: BV tests (Nb,
 * result.volume_tests: one per child volume tested when an 8-wide node is
 * unfolded), triangle tests (Np), and the median time. The log-log slope of
 * Nb against the gap is fitted by least squares over a range of gaps and
 * compared with the slides' -2 (AABB, sphere) and -1 (OBB).
 *
 *   close_proximity [--rotations N] [--stacks S] [--slices L] [--per-decade K]
 *                   [--gap-min G] [--gap-max G] [--fit LO:HI]... [--repeats R]
 *                   [--seed S] [--csv FILE] [--plot DIR]
 *
 * Each --fit adds a range of gaps to fit over (default: 0.1:1, where the
 * default tessellation's trees of every kind separate the spheres above leaf
 * level; 0.01:1, where the oriented boxes still do; 0:0.1, every gap up to
 * 0.1); the slope over every decade is printed too. The plot's reference
 * lines go through the first range's fits.
 * Queries that take over 200 us are timed once (the counted run); faster
 * ones are run R more times (default 2) and the fastest run is kept.
 *
 * --plot DIR writes DIR/close_proximity.dat and DIR/close_proximity.gp and,
 * when gnuplot is installed, runs it to make DIR/close_proximity.png (else it
 * says the plot was skipped; `cd DIR && gnuplot close_proximity.gp` makes it
 * later). */
#define _POSIX_C_SOURCE 200809L
#include <proxima/query.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
/* prox_volume_has_obb: the library's own test of which kinds are oriented */
#include "../src/bvh_internal.h"

typedef struct variant {
    const char* name;
    prox_volume volume;
    prox_sat sat;
    double predicted_slope; /* the slides' asymptotic slope of log Nb vs log gap */
} variant;

/* SAT full and lite apply to the box kinds; the dual OBB-sphere tree always
 * tests its sphere and then 5 axes, the sphere tree its spheres only. */
static const variant variants[] = {
    {"aabb full", PROX_VOLUME_AABB, PROX_SAT_FULL, -2.0},
    {"aabb lite", PROX_VOLUME_AABB, PROX_SAT_LITE, -2.0},
    {"obb full", PROX_VOLUME_OBB, PROX_SAT_FULL, -1.0},
    {"obb lite", PROX_VOLUME_OBB, PROX_SAT_LITE, -1.0},
    {"obb-sphere", PROX_VOLUME_OBB_SPHERE, PROX_SAT_FULL, -1.0},
    {"sphere", PROX_VOLUME_SPHERE, PROX_SAT_FULL, -2.0},
};
enum { VARIANT_COUNT = sizeof variants / sizeof variants[0], MAX_GAPS = 64, PAIR_BUFFER = 8, MAX_FITS = 8 };

typedef struct cell {
    double nb_mean, nb_min, nb_max;
    double np_mean;
    double median_us;
    int64_t contacts; /* queries that found a contacting pair: must stay 0 */
} cell;

typedef struct fit {
    double slope, intercept, r2;
    int points;
} fit;

typedef struct options {
    int rotations, stacks, slices, per_decade, repeats;
    double gap_min, gap_max;
    int fit_count;
    double fit_lo[MAX_FITS], fit_hi[MAX_FITS];
    uint64_t seed;
    const char* csv_path;
    const char* plot_dir;
} options;

static void usage(void) {
    fprintf(stderr, "usage: close_proximity [--rotations N] [--stacks S] [--slices L] [--per-decade K]\n"
                    "                       [--gap-min G] [--gap-max G] [--fit LO:HI]... [--repeats R]\n"
                    "                       [--seed S] [--csv FILE] [--plot DIR]\n");
}

static prox_bvh* build_tree(const prox_mesh_data* data, prox_volume volume) {
    prox_bvh_def def = prox_default_bvh_def();
    def.volume = volume;
    def.leaf_size = 1; /* the papers', as the recorded runs (the default since is 2) */
    /* the papers' splits, as the recorded runs: median (van den Bergen) for
     * the axis-aligned and sphere kinds, the OBBTree's mean for oriented boxes
     * (their default since is SAH) */
    def.split = prox_volume_has_obb(volume) ? PROX_SPLIT_MEAN : PROX_SPLIT_MEDIAN;
    prox_mesh mesh = prox_mesh_data_view(data);
    prox_bvh* bvh = NULL;
    char message[256];
    if (prox_bvh_create(&def, &mesh, &bvh, message, sizeof message) != PROX_OK) {
        fprintf(stderr, "close_proximity: building a %s tree: %s\n", prox_volume_name(volume), message);
        exit(1);
    }
    return bvh;
}

static double largest_vertex_radius(const prox_mesh_data* m) {
    double r = 0;
    for (int i = 0; i < m->vertex_count; ++i) r = fmax(r, prox_vec3_length(m->vertices[i]));
    return r;
}

/* Smallest distance from the origin to the plane of a facet, over all
 * facets: a lower bound on the distance from the origin to the surface
 * (a point of a triangle is never closer than the triangle's plane). */
static double smallest_plane_distance(const prox_mesh_data* m) {
    double h = INFINITY;
    for (int t = 0; t < m->triangle_count; ++t) {
        prox_vec3 p0 = m->vertices[m->indices[3 * t]];
        prox_vec3 p1 = m->vertices[m->indices[3 * t + 1]];
        prox_vec3 p2 = m->vertices[m->indices[3 * t + 2]];
        prox_vec3 n = prox_vec3_cross(prox_vec3_sub(p1, p0), prox_vec3_sub(p2, p0));
        double len = prox_vec3_length(n);
        /* a zero-area facet is a segment or a point: its nearest vertex bounds it */
        double d = len > 0 ? fabs(prox_vec3_dot(n, p0)) / len
                           : fmin(prox_vec3_length(p0), fmin(prox_vec3_length(p1), prox_vec3_length(p2)));
        h = fmin(h, d);
    }
    return h;
}

/* The unit mesh scaled by `s` (the caller frees the copy). */
static prox_mesh_data scaled_copy(const prox_mesh_data* m, double s) {
    prox_mesh_data out = *m;
    out.vertices = malloc(sizeof(prox_vec3) * (size_t)m->vertex_count);
    out.indices = malloc(sizeof(uint32_t) * 3 * (size_t)m->triangle_count);
    if (!out.vertices || !out.indices) {
        fprintf(stderr, "close_proximity: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < m->vertex_count; ++i) out.vertices[i] = prox_vec3_scale(m->vertices[i], s);
    memcpy(out.indices, m->indices, sizeof(uint32_t) * 3 * (size_t)m->triangle_count);
    return out;
}

/* Least-squares line through (log10 gap, log10 y) for gaps in [lo, hi]. */
static fit fit_slope(const double* gaps, const double* y, int count, double lo, double hi) {
    fit f = {NAN, NAN, NAN, 0};
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    int n = 0;
    for (int i = 0; i < count; ++i) {
        /* relative tolerance: gaps come from pow() and the bounds from the user */
        if (gaps[i] < lo * (1 - 1e-9) || gaps[i] > hi * (1 + 1e-9) || !(y[i] > 0)) continue;
        double x = log10(gaps[i]), v = log10(y[i]);
        sx += x;
        sy += v;
        sxx += x * x;
        sxy += x * v;
        syy += v * v;
        n++;
    }
    f.points = n;
    if (n < 2) return f;
    double vxx = sxx - sx * sx / n, vxy = sxy - sx * sy / n, vyy = syy - sy * sy / n;
    if (!(vxx > 0)) return f;
    f.slope = vxy / vxx;
    f.intercept = (sy - f.slope * sx) / n;
    f.r2 = vyy > 0 ? vxy * vxy / (vxx * vyy) : 1.0;
    return f;
}

static bool parse_args(int argc, char** argv, options* o) {
    bool default_fits = true;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        bool has_value = i + 1 < argc;
        if (!has_value) return false;
        const char* v = argv[++i];
        if (strcmp(a, "--rotations") == 0) o->rotations = atoi(v);
        else if (strcmp(a, "--stacks") == 0) o->stacks = atoi(v);
        else if (strcmp(a, "--slices") == 0) o->slices = atoi(v);
        else if (strcmp(a, "--per-decade") == 0) o->per_decade = atoi(v);
        else if (strcmp(a, "--repeats") == 0) o->repeats = atoi(v);
        else if (strcmp(a, "--gap-min") == 0) o->gap_min = atof(v);
        else if (strcmp(a, "--gap-max") == 0) o->gap_max = atof(v);
        else if (strcmp(a, "--fit") == 0) {
            if (default_fits) o->fit_count = 0;
            default_fits = false;
            char* end = NULL;
            double lo = strtod(v, &end);
            if (*end != ':' || o->fit_count == MAX_FITS) return false;
            double hi = strtod(end + 1, &end);
            if (*end != '\0' || !(lo >= 0) || !(hi > lo)) return false;
            o->fit_lo[o->fit_count] = lo;
            o->fit_hi[o->fit_count++] = hi;
        }
        else if (strcmp(a, "--seed") == 0) o->seed = strtoull(v, NULL, 10);
        else if (strcmp(a, "--csv") == 0) o->csv_path = v;
        else if (strcmp(a, "--plot") == 0) o->plot_dir = v;
        else return false;
    }
    return o->rotations >= 1 && o->stacks >= 2 && o->slices >= 3 && o->per_decade >= 1 && o->repeats >= 1 &&
           o->gap_min > 0 && o->gap_max >= o->gap_min;
}

/* The gnuplot script: Nb per query against the gap, one line per variant,
 * with dashed reference slopes -1 and -2 over the fitted range. */
static bool write_plot_files(const options* o, const char* command, int triangles, int gap_count, const double* gaps,
                             cell table[][VARIANT_COUNT], const fit* fits, double fit_lo, double fit_hi) {
    char path[4096];
    snprintf(path, sizeof path, "%s/close_proximity.dat", o->plot_dir);
    FILE* dat = fopen(path, "w");
    if (!dat) {
        fprintf(stderr, "close_proximity: cannot write %s\n", path);
        return false;
    }
    fprintf(dat, "# %s\n# gap", command);
    for (int v = 0; v < VARIANT_COUNT; ++v) fprintf(dat, " \"Nb %s\"", variants[v].name);
    for (int v = 0; v < VARIANT_COUNT; ++v) fprintf(dat, " \"Np %s\"", variants[v].name);
    fprintf(dat, "\n");
    for (int g = 0; g < gap_count; ++g) {
        fprintf(dat, "%.9g", gaps[g]);
        for (int v = 0; v < VARIANT_COUNT; ++v) fprintf(dat, " %.6g", table[g][v].nb_mean);
        for (int v = 0; v < VARIANT_COUNT; ++v) fprintf(dat, " %.6g", table[g][v].np_mean);
        fprintf(dat, "\n");
    }
    fclose(dat);

    snprintf(path, sizeof path, "%s/close_proximity.gp", o->plot_dir);
    FILE* gp = fopen(path, "w");
    if (!gp) {
        fprintf(stderr, "close_proximity: cannot write %s\n", path);
        return false;
    }
    /* reference lines through the fitted lines of "aabb full" and "obb
     * full" at the middle (in log) of the first fitted range, drawn over
     * every gap */
    double mid = sqrt(fit_lo * fit_hi);
    double a2 = pow(10.0, fits[0].intercept + fits[0].slope * log10(mid)) * mid * mid;
    double a1 = pow(10.0, fits[2].intercept + fits[2].slope * log10(mid)) * mid;
    double y_lo = INFINITY, y_hi = 0;
    for (int g = 0; g < gap_count; ++g)
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            y_lo = fmin(y_lo, table[g][v].nb_mean);
            y_hi = fmax(y_hi, table[g][v].nb_mean);
        }
    fprintf(gp, "# Written by bench/close_proximity: %s\n", command);
    fprintf(gp, "# Make the plot: cd into this folder, then: gnuplot close_proximity.gp\n");
    fprintf(gp, "set terminal pngcairo size 1000,680 font \",11\"\n");
    fprintf(gp, "set output \"close_proximity.png\"\n");
    fprintf(gp, "set logscale xy\nset format x \"10^{%%L}\"\nset format y \"10^{%%L}\"\n");
    fprintf(gp, "set xlabel \"gap (outer surface at least 1 + gap from the centre; inner sphere radius 1)\"\n");
    fprintf(gp, "set ylabel \"BV tests per query (mean of %d rotations)\"\n", o->rotations);
    fprintf(
        gp,
        "set title \"Parallel close proximity: UV sphere (%d triangles) inside a concentric sphere, leaf size 1\"\n",
        triangles);
    fprintf(gp, "set grid xtics ytics mxtics mytics lc rgb \"#dddddd\"\n");
    fprintf(gp, "set key bottom left box opaque\nset samples 400\n");
    fprintf(gp, "set xrange [%.6g:%.6g]\n", gaps[gap_count - 1] / 1.5, gaps[0] * 1.5);
    fprintf(gp, "set yrange [%.6g:%.6g]\n", fmax(y_lo, 1.0) / 2, y_hi * 4);
    /* a range with fewer than two gaps has no fit: no reference line then */
    if (isfinite(a2)) fprintf(gp, "ref2(x) = %.9g * x**-2\n", a2);
    else fprintf(gp, "ref2(x) = 1/0\n");
    if (isfinite(a1)) fprintf(gp, "ref1(x) = %.9g * x**-1\n", a1);
    else fprintf(gp, "ref1(x) = 1/0\n");
    static const char* const colors[VARIANT_COUNT] = {"#1f77b4", "#6baed6", "#d62728", "#ff9896", "#2ca02c", "#9467bd"};
    static const int point_types[VARIANT_COUNT] = {5, 4, 7, 6, 9, 11};
    fprintf(gp, "plot \\\n");
    for (int v = 0; v < VARIANT_COUNT; ++v)
        fprintf(gp,
                "  \"close_proximity.dat\" using 1:%d with linespoints lw 2 pt %d lc rgb \"%s\" title \"%s "
                "(slope %.2f on %.3g..%.3g)\", \\\n",
                2 + v, point_types[v], colors[v], variants[v].name, fits[v].slope, fit_lo, fit_hi);
    fprintf(gp, "  ref2(x) with lines dt 2 lw 1.5 lc rgb \"#555555\" title \"slope -2 (slides: AABB, sphere)\", \\\n");
    fprintf(gp, "  ref1(x) with lines dt 3 lw 1.5 lc rgb \"#555555\" title \"slope -1 (slides: OBB)\"\n");
    fclose(gp);
    return true;
}

static void run_gnuplot(const char* dir) {
    if (strchr(dir, '\'')) {
        printf("Plot skipped: the folder name contains a quote; run `gnuplot close_proximity.gp` there.\n");
        return;
    }
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("Plot skipped: gnuplot not found (apt-get install gnuplot-nox); the data and script are in %s, "
               "run `cd %s && gnuplot close_proximity.gp` later.\n",
               dir, dir);
        return;
    }
    char command[4200];
    snprintf(command, sizeof command, "cd '%s' && gnuplot close_proximity.gp", dir);
    if (system(command) != 0) printf("Plot failed: `%s` returned an error.\n", command);
    else printf("Plot: %s/close_proximity.png\n", dir);
}

/* One Markdown table: a row per gap, a column per variant, the cell field
 * at byte offset `field` (counts print as integers, times with 2 decimals
 * below 100 us). */
static void print_table(const char* title, cell table[][VARIANT_COUNT], const double* gaps, int gap_count,
                        size_t field) {
    printf("\n## %s\n\n| gap |", title);
    for (int v = 0; v < VARIANT_COUNT; ++v) printf(" %s |", variants[v].name);
    printf("\n|---:|");
    for (int v = 0; v < VARIANT_COUNT; ++v) printf("---:|");
    printf("\n");
    const bool time = field == offsetof(cell, median_us);
    for (int g = 0; g < gap_count; ++g) {
        printf("| %.3g |", gaps[g]);
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            double x;
            memcpy(&x, (const char*)&table[g][v] + field, sizeof x);
            printf(time && x < 100 ? " %.2f |" : " %.0f |", x);
        }
        printf("\n");
    }
}

int main(int argc, char** argv) {
    options o = {50, 64, 128, 4, 2, 1e-4, 1.0, 3, {0.1, 0.01, 0.0}, {1.0, 1.0, 0.1}, 1996, NULL, NULL};
    if (!parse_args(argc, argv, &o)) {
        usage();
        return 2;
    }
    char command[4096] = "close_proximity";
    for (int i = 1; i < argc; ++i) {
        size_t used = strlen(command);
        snprintf(command + used, sizeof command - used, " %s", argv[i]);
    }

    /* gaps: gap_max * 10^(-i / per_decade) down to gap_min */
    double gaps[MAX_GAPS];
    int gap_count = 0;
    for (int i = 0; gap_count < MAX_GAPS; ++i) {
        double g = o.gap_max * pow(10.0, -(double)i / o.per_decade);
        if (g < o.gap_min * (1 - 1e-9)) break;
        gaps[gap_count++] = g;
    }

    prox_mesh_data unit;
    if (prox_mesh_sphere(1.0, o.stacks, o.slices, &unit) != PROX_OK) {
        fprintf(stderr, "close_proximity: cannot make a %d x %d UV sphere\n", o.stacks, o.slices);
        return 1;
    }
    const double r_in = largest_vertex_radius(&unit); /* the inner mesh lies in this ball */
    const double h_unit = smallest_plane_distance(&unit);

    printf("# close_proximity: parallel close proximity of two concentric spheres\n\n");
    printf("Command: `%s`\n\n", command);
    printf("Inner model: UV sphere of radius 1, %d stacks x %d slices = %d triangles, %d vertices (largest vertex "
           "radius %.17g). Its facet planes come as close as %.9f to the centre (sagitta %.3g), so the outer model, "
           "the same tessellation, is scaled by (1 + gap) x %.9f / %.9f (x (1 + 1e-12) for rounding): every point "
           "of its facets is at least 1 + gap from the centre, so the surfaces are at least `gap` apart under any "
           "rotation about the centre. Where facets face vertices the local distance is up to about gap + %.2g.\n\n",
           o.stacks, o.slices, unit.triangle_count, unit.vertex_count, r_in, h_unit, 1 - h_unit, r_in, h_unit,
           2 * (1 - h_unit));
    printf("%d gaps from %.3g down to %.3g (%d per decade); %d random rotations of both models (seed %llu), the "
           "same for every gap and kind; leaf size 1, the papers' splits (median for AABB and sphere, the "
           "OBBTree's mean for OBB). Nb = BV tests per query (mean over the rotations; every child volume tested when "
           "an 8-wide "
           "node is unfolded counts one), Np = triangle tests per query (mean), time = median over the rotations of "
           "the fastest of its runs (1, or 1 + %d when under 200 us). Every query asks for all contacting pairs and "
           "must find none.\n\n",
           gap_count, gaps[0], gaps[gap_count - 1], o.per_decade, o.rotations, (unsigned long long)o.seed, o.repeats);

    prox_transform* xa = malloc(sizeof *xa * (size_t)o.rotations);
    prox_transform* xb = malloc(sizeof *xb * (size_t)o.rotations);
    double* nb = malloc(sizeof(double) * (size_t)o.rotations);
    double* np = malloc(sizeof(double) * (size_t)o.rotations);
    double* times = malloc(sizeof(double) * (size_t)o.rotations);
    static cell table[MAX_GAPS][VARIANT_COUNT];
    if (!xa || !xb || !nb || !np || !times) {
        fprintf(stderr, "close_proximity: out of memory\n");
        return 1;
    }
    prox_rng rng = prox_rng_seed(o.seed);
    for (int r = 0; r < o.rotations; ++r) {
        for (int m = 0; m < 2; ++m) {
            prox_quat q = prox_rng_rotation(&rng);
            prox_transform t = prox_transform_make(q, prox_vec3_make(1, 1, 1), prox_vec3_make(0, 0, 0));
            if (m == 0) xa[r] = t;
            else xb[r] = t;
        }
    }

    prox_bvh* inner[PROX_VOLUME_COUNT];
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) inner[k] = build_tree(&unit, (prox_volume)k);
    printf("| tree | volumes | leaves | 8-wide nodes | depth (8-wide) | mean leaf depth "
           "|\n|---|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) {
        prox_bvh_stats s = prox_bvh_get_stats(inner[k]);
        printf("| %s (%s split) | %d | %d | %d | %d | %.2f |\n", prox_volume_name((prox_volume)k),
               prox_split_name(s.split), s.box_count, s.leaf_count, s.node_count, s.depth, s.mean_leaf_depth);
    }
    printf("\n");

    FILE* csv = NULL;
    if (o.csv_path) {
        csv = fopen(o.csv_path, "w");
        if (!csv) {
            fprintf(stderr, "close_proximity: cannot write %s\n", o.csv_path);
            return 1;
        }
        fprintf(csv, "# %s\n", command);
        fprintf(csv, "gap,variant,volume,sat,triangles,rotations,outer_scale,nb_mean,nb_min,nb_max,np_mean,"
                     "median_us,contacts\n");
    }

    prox_tri_pair pairs[PAIR_BUFFER];
    prox_collide_def def = prox_default_collide_def();
    def.all_pairs = true;
    def.pairs = pairs;
    def.capacity = PAIR_BUFFER;
    int64_t total_contacts = 0;
    double smallest_gap_distance = 0;
    const double start = experiment_now();
    for (int g = 0; g < gap_count; ++g) {
        const double scale = (1 + gaps[g]) * r_in / h_unit * (1 + 1e-12);
        prox_mesh_data outer_mesh = scaled_copy(&unit, scale);
        /* check the construction on the actual coordinates */
        const double h_outer = smallest_plane_distance(&outer_mesh);
        if (!(h_outer >= r_in * (1 + gaps[g]))) {
            fprintf(stderr, "close_proximity: outer facets at %.17g, inside 1 + gap = %.17g\n", h_outer,
                    r_in * (1 + gaps[g]));
            return 1;
        }
        if (g == gap_count - 1) smallest_gap_distance = h_outer - r_in;
        prox_bvh* outer[PROX_VOLUME_COUNT];
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) outer[k] = build_tree(&outer_mesh, (prox_volume)k);
        for (int v = 0; v < VARIANT_COUNT; ++v) {
            const prox_bvh* a = inner[variants[v].volume];
            const prox_bvh* b = outer[variants[v].volume];
            def.sat = variants[v].sat;
            cell* c = &table[g][v];
            memset(c, 0, sizeof *c);
            c->nb_min = INFINITY;
            for (int r = 0; r < o.rotations; ++r) {
                /* the counted run, timed too */
                double t_first = experiment_now();
                prox_collide_result res = prox_collide(a, &xa[r], b, &xb[r], &def);
                double best = experiment_now() - t_first;
                if (res.colliding || res.pair_count != 0 || res.invalid_transform) {
                    c->contacts++;
                    if (res.pair_count > 0)
                        fprintf(stderr,
                                "close_proximity: CONTACT at gap %.3g, %s, rotation %d: %lld pairs, first (%d, %d)\n",
                                gaps[g], variants[v].name, r, (long long)res.pair_count, pairs[0].triangle_a,
                                pairs[0].triangle_b);
                }
                nb[r] = (double)res.volume_tests;
                np[r] = (double)res.triangle_tests;
                /* fast queries: rerun with warm caches and keep the fastest */
                for (int k = 0; k < o.repeats && best < 200e-6; ++k) {
                    double t0 = experiment_now();
                    prox_collide_result again = prox_collide(a, &xa[r], b, &xb[r], &def);
                    double t = experiment_now() - t0;
                    best = fmin(best, t);
                    if (again.volume_tests != res.volume_tests) c->contacts++; /* cannot happen: deterministic */
                }
                times[r] = best;
                c->nb_mean += nb[r];
                c->np_mean += np[r];
                c->nb_min = fmin(c->nb_min, nb[r]);
                c->nb_max = fmax(c->nb_max, nb[r]);
            }
            c->nb_mean /= o.rotations;
            c->np_mean /= o.rotations;
            c->median_us = 1e6 * experiment_median(times, o.rotations);
            total_contacts += c->contacts;
            if (csv)
                fprintf(csv, "%.9g,%s,%s,%s,%d,%d,%.12g,%.3f,%.0f,%.0f,%.3f,%.4f,%lld\n", gaps[g], variants[v].name,
                        prox_volume_name(variants[v].volume), variants[v].sat == PROX_SAT_LITE ? "lite" : "full",
                        unit.triangle_count, o.rotations, scale, c->nb_mean, c->nb_min, c->nb_max, c->np_mean,
                        c->median_us, (long long)c->contacts);
        }
        for (int k = 0; k < PROX_VOLUME_COUNT; ++k) prox_bvh_destroy(outer[k]);
        free(outer_mesh.vertices);
        free(outer_mesh.indices);
        fprintf(stderr, "close_proximity: gap %.3g done (%.1f s)\n", gaps[g], experiment_now() - start);
    }
    const double elapsed = experiment_now() - start;

    /* Control: at the smallest gap, scale the outer mesh by 1 + gap only,
     * ignoring the sagitta: its facets sink inside the inner mesh's vertices
     * and the query must find contact for (almost) every rotation. */
    int control_hits = 0;
    {
        const double g = gaps[gap_count - 1];
        prox_mesh_data naive = scaled_copy(&unit, 1 + g);
        prox_bvh* naive_tree = build_tree(&naive, PROX_VOLUME_AABB);
        for (int r = 0; r < o.rotations; ++r)
            control_hits += prox_overlap(inner[PROX_VOLUME_AABB], &xa[r], naive_tree, &xb[r], PROX_SAT_FULL);
        prox_bvh_destroy(naive_tree);
        free(naive.vertices);
        free(naive.indices);
    }

    char title[96];
    snprintf(title, sizeof title, "BV tests per query (Nb, mean over %d rotations)", o.rotations);
    print_table(title, table, gaps, gap_count, offsetof(cell, nb_mean));
    print_table("Triangle tests per query (Np, mean)", table, gaps, gap_count, offsetof(cell, np_mean));
    print_table("Time per query (us, median over the rotations)", table, gaps, gap_count, offsetof(cell, median_us));

    /* slopes: the chosen ranges (clamped to the measured gaps), then every
     * decade window */
    fit fits[MAX_FITS][VARIANT_COUNT];
    double y[MAX_GAPS];
    double fit_lo[MAX_FITS], fit_hi[MAX_FITS];
    for (int f = 0; f < o.fit_count; ++f) {
        fit_lo[f] = fmax(o.fit_lo[f], gaps[gap_count - 1]);
        fit_hi[f] = fmin(o.fit_hi[f], gaps[0]);
    }
    printf("\n## Log-log slope of Nb vs gap (least squares)\n\n");
    printf("Fitted ranges:");
    for (int f = 0; f < o.fit_count; ++f) printf("%s %.3g <= gap <= %.3g", f ? ";" : "", fit_lo[f], fit_hi[f]);
    printf(". Decade windows: the same fit over the %d + 1 gaps of each decade.\n\n", o.per_decade);
    int decades = 0;
    double decade_hi[MAX_GAPS];
    for (int g = 0; g + o.per_decade < gap_count; g += o.per_decade) decade_hi[decades++] = gaps[g];
    printf("| variant | slides |");
    for (int f = 0; f < o.fit_count; ++f) printf(" slope on %.3g..%.3g (R^2, points) |", fit_lo[f], fit_hi[f]);
    for (int d = 0; d < decades; ++d) printf(" %.3g..%.3g |", decade_hi[d] / 10.0, decade_hi[d]);
    printf("\n|---|---:|");
    for (int f = 0; f < o.fit_count + decades; ++f) printf("---:|");
    printf("\n");
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        for (int g = 0; g < gap_count; ++g) y[g] = table[g][v].nb_mean;
        printf("| %s | %.0f |", variants[v].name, variants[v].predicted_slope);
        for (int f = 0; f < o.fit_count; ++f) {
            fits[f][v] = fit_slope(gaps, y, gap_count, fit_lo[f], fit_hi[f]);
            printf(" **%.2f** (%.3f, %d) |", fits[f][v].slope, fits[f][v].r2, fits[f][v].points);
            if (csv)
                fprintf(csv, "# slope,%s,%.9g,%.9g,%.6f,%.6f,%d\n", variants[v].name, fit_lo[f], fit_hi[f],
                        fits[f][v].slope, fits[f][v].r2, fits[f][v].points);
        }
        for (int d = 0; d < decades; ++d) {
            fit w = fit_slope(gaps, y, gap_count, decade_hi[d] / 10.0, decade_hi[d]);
            printf(" %.2f |", w.slope);
            if (csv)
                fprintf(csv, "# decade_slope,%s,%.9g,%.9g,%.6f\n", variants[v].name, decade_hi[d] / 10.0,
                        decade_hi[d], w.slope);
        }
        printf("\n");
    }

    printf("\n## Checks\n\n");
    printf("- Contact: %lld of %d queries found a contacting pair or a different count on a rerun (must be 0). At "
           "the smallest gap (%.3g) every query over all %d variants and %d rotations reported 0 pairs; the outer "
           "facet planes are %.6g from the inner mesh's bounding ball there.\n",
           (long long)total_contacts, gap_count * VARIANT_COUNT * o.rotations, gaps[gap_count - 1], VARIANT_COUNT,
           o.rotations, smallest_gap_distance);
    printf("- Control: with the outer mesh scaled by 1 + %.3g only, ignoring the sagitta (%.3g, %s the gap), the "
           "AABB query finds contact in %d of %d rotations.\n",
           gaps[gap_count - 1], 1 - h_unit, 1 - h_unit > gaps[gap_count - 1] ? "more than" : "less than",
           control_hits, o.rotations);
    printf("- Measuring time: %.1f s for %d gaps x %d variants x %d rotations (each query run once, and %d more "
           "times when under 200 us).\n",
           elapsed, gap_count, VARIANT_COUNT, o.rotations, o.repeats);
    if (csv) fclose(csv);

    if (o.plot_dir) {
        printf("\n");
        if (write_plot_files(&o, command, unit.triangle_count, gap_count, gaps, table, fits[0], fit_lo[0], fit_hi[0]))
            run_gnuplot(o.plot_dir);
    }

    for (int k = 0; k < PROX_VOLUME_COUNT; ++k) prox_bvh_destroy(inner[k]);
    prox_mesh_data_free(&unit);
    free(xa);
    free(xb);
    free(nb);
    free(np);
    free(times);
    return total_contacts == 0 ? 0 : 1;
}
