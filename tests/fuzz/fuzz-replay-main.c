/*
 * Replays inputs through a fuzz target without libFuzzer: each argument is an input file or a
 * directory of them (sorted by name). Built with the unit tests' sanitizers, this runs the
 * committed corpora and the regression inputs of every crash found (tests/fuzz/regress/) in the
 * default suite. Exit status 0 after replaying at least one input.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz.h"

static unsigned replay_file(const char *path)
{
    g_autofree gchar *buf = NULL;
    gsize len;
    g_autoptr(GError) err = NULL;

    if (!g_file_get_contents(path, &buf, &len, &err)) {
        fprintf(stderr, "%s: %s\n", path, err->message);
        exit(2);
    }
    if (getenv("FUZZ_REPLAY_VERBOSE")) {
        fprintf(stderr, "replay %s (%zu bytes)\n", path, (size_t)len);
    }
    LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    return 1;
}

static gint cmp_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    unsigned n = 0;

    for (int i = 1; i < argc; i++) {
        if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            g_autoptr(GDir) dir = g_dir_open(argv[i], 0, NULL);
            g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
            const char *e;

            while (dir && (e = g_dir_read_name(dir))) {
                g_ptr_array_add(names, g_build_filename(argv[i], e, NULL));
            }
            g_ptr_array_sort(names, cmp_names);
            for (unsigned k = 0; k < names->len; k++) {
                n += replay_file(names->pdata[k]);
            }
        } else if (g_file_test(argv[i], G_FILE_TEST_EXISTS)) {
            n += replay_file(argv[i]);
        }
    }
    printf("%s: %u inputs replayed\n", argv[0], n);
    return n ? 0 : 1;
}
