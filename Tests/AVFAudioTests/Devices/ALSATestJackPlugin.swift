// A sound card's jacks without a sound card: an alsa-lib external control plugin (the "External
// Control Plugin SDK", control_external.h), written here in C and compiled by the test with the
// C compiler the Swift toolchain brings. alsa-lib loads it for `ctl.avaudio_jacks` of the tests'
// private ALSA configuration (ALSADeviceTests.swift); it shows a card's controls — jack controls
// on the card interface, mixer switches and volumes — whose values it reads from a state file, one
// line per control ("IFACE<TAB>NAME<TAB>VALUE" for a boolean, "…<TAB>MIN<TAB>MAX" for an integer
// control with that range), and it raises a value event for each control whose
// value changed when the file is replaced (an inotify descriptor on its folder is the control's
// poll descriptor). A test plugs headphones in by rewriting the file.
//
// The plugin is not linked against alsa-lib (the build has no alsa headers or development
// library): it declares the few structures it fills from alsa-lib's documentation and finds the
// functions it calls in the libasound.so.2 the process already loaded (dlopen RTLD_NOLOAD).
import Foundation

enum ALSATestJackPlugin {
    /// The plugin's C source.
    static let source = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/inotify.h>
    #include <unistd.h>

    typedef struct snd_ctl snd_ctl_t;
    typedef struct snd_config snd_config_t;
    typedef struct snd_ctl_elem_id snd_ctl_elem_id_t;
    typedef unsigned long snd_ctl_ext_key_t;
    struct snd_ctl_ext;
    typedef struct snd_ctl_ext snd_ctl_ext_t;

    /* control_external.h, protocol 1.0.1: the callbacks in the header's order. */
    typedef struct {
        void (*close)(snd_ctl_ext_t *);
        int (*elem_count)(snd_ctl_ext_t *);
        int (*elem_list)(snd_ctl_ext_t *, unsigned int, snd_ctl_elem_id_t *);
        snd_ctl_ext_key_t (*find_elem)(snd_ctl_ext_t *, const snd_ctl_elem_id_t *);
        void (*free_key)(snd_ctl_ext_t *, snd_ctl_ext_key_t);
        int (*get_attribute)(snd_ctl_ext_t *, snd_ctl_ext_key_t, int *, unsigned int *, unsigned int *);
        int (*get_integer_info)(snd_ctl_ext_t *, snd_ctl_ext_key_t, long *, long *, long *);
        void *get_integer64_info, *get_enumerated_info, *get_enumerated_name;
        int (*read_integer)(snd_ctl_ext_t *, snd_ctl_ext_key_t, long *);
        void *read_integer64, *read_enumerated, *read_bytes, *read_iec958;
        int (*write_integer)(snd_ctl_ext_t *, snd_ctl_ext_key_t, long *);
        void *write_integer64, *write_enumerated, *write_bytes, *write_iec958;
        void (*subscribe_events)(snd_ctl_ext_t *, int);
        int (*read_event)(snd_ctl_ext_t *, snd_ctl_elem_id_t *, unsigned int *);
        void *poll_descriptors_count, *poll_descriptors, *poll_revents;
    } callbacks_t;

    struct snd_ctl_ext {
        unsigned int version;
        int card_idx;
        char id[16], driver[16], name[32], longname[80], mixername[80];
        int poll_fd;
        const callbacks_t *callback;
        void *private_data;
        snd_ctl_t *handle;
        int nonblock, subscribed;
        void *tlv;
    };

    #define MAX_CONTROLS 16
    typedef struct {
        snd_ctl_ext_t ext;
        char path[4096];
        int count;
        int iface[MAX_CONTROLS];
        char name[MAX_CONTROLS][44];
        int integer[MAX_CONTROLS];
        long min[MAX_CONTROLS], max[MAX_CONTROLS];
        long value[MAX_CONTROLS];      /* as last reported */
    } fake_t;

    static int (*ext_create)(snd_ctl_ext_t *, const char *, int);
    static int (*ext_delete)(snd_ctl_ext_t *);
    static void (*id_set_interface)(snd_ctl_elem_id_t *, int);
    static void (*id_set_name)(snd_ctl_elem_id_t *, const char *);
    static int (*id_get_interface)(const snd_ctl_elem_id_t *);
    static const char *(*id_get_name)(const snd_ctl_elem_id_t *);
    static int (*config_search)(snd_config_t *, const char *, snd_config_t **);
    static int (*config_get_string)(const snd_config_t *, const char **);

    /* Reads the state file: controls (when `names`) and values. Returns the number of lines. */
    static int load(fake_t *f, long *values, int names) {
        FILE *file = fopen(f->path, "r");
        if (!file) return -1;
        char line[256];
        int n = 0;
        while (n < MAX_CONTROLS && fgets(line, sizeof line, file)) {
            char *tab1 = strchr(line, '\t'); if (!tab1) continue;
            char *tab2 = strchr(tab1 + 1, '\t'); if (!tab2) continue;
            char *tab3 = strchr(tab2 + 1, '\t');
            char *tab4 = tab3 ? strchr(tab3 + 1, '\t') : NULL;
            *tab1 = 0; *tab2 = 0;
            if (names) {
                f->iface[n] = atoi(line);
                snprintf(f->name[n], sizeof f->name[n], "%s", tab1 + 1);
                f->integer[n] = tab3 && tab4;
                f->min[n] = tab3 && tab4 ? atol(tab3 + 1) : 0;
                f->max[n] = tab3 && tab4 ? atol(tab4 + 1) : 1;
            }
            values[n] = atol(tab2 + 1);
            n++;
        }
        fclose(file);
        return n;
    }

    static int elem_count(snd_ctl_ext_t *ext) { return ((fake_t *)ext->private_data)->count; }
    static int elem_list(snd_ctl_ext_t *ext, unsigned int offset, snd_ctl_elem_id_t *id) {
        fake_t *f = ext->private_data;
        if ((int)offset >= f->count) return -EINVAL;
        id_set_interface(id, f->iface[offset]);
        id_set_name(id, f->name[offset]);
        return 0;
    }
    static snd_ctl_ext_key_t find_elem(snd_ctl_ext_t *ext, const snd_ctl_elem_id_t *id) {
        fake_t *f = ext->private_data;
        for (int i = 0; i < f->count; i++)
            if (id_get_interface(id) == f->iface[i] && strcmp(id_get_name(id), f->name[i]) == 0) return i;
        return (snd_ctl_ext_key_t)-1;
    }
    static int get_attribute(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, int *type, unsigned int *acc, unsigned int *count) {
        fake_t *f = ext->private_data;
        if ((int)key >= f->count) return -EINVAL;
        *type = f->integer[key] ? 2 : 1;   /* SND_CTL_ELEM_TYPE_INTEGER, _BOOLEAN */
        *acc = 1;    /* SND_CTL_EXT_ACCESS_READ */
        *count = 1;
        return 0;
    }
    static int get_integer_info(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *imin, long *imax, long *istep) {
        fake_t *f = ext->private_data;
        if ((int)key >= f->count) return -EINVAL;
        *imin = f->min[key]; *imax = f->max[key]; *istep = 1;
        return 0;
    }
    static int read_integer(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *value) {
        fake_t *f = ext->private_data;
        long values[MAX_CONTROLS] = {0};
        int n = load(f, values, 0);
        if ((int)key >= f->count) return -EINVAL;
        *value = (int)key < n ? values[key] : 0;
        return 0;
    }
    static int write_integer(snd_ctl_ext_t *ext, snd_ctl_ext_key_t key, long *value) { return -EPERM; }
    static void subscribe_events(snd_ctl_ext_t *ext, int subscribe) {}
    /* One event per call: the first control whose value differs from the one last reported. */
    static int read_event(snd_ctl_ext_t *ext, snd_ctl_elem_id_t *id, unsigned int *mask) {
        fake_t *f = ext->private_data;
        char buffer[4096];
        while (read(ext->poll_fd, buffer, sizeof buffer) > 0) {}
        long values[MAX_CONTROLS] = {0};
        int n = load(f, values, 0);
        for (int i = 0; i < f->count && i < n; i++) {
            if (values[i] != f->value[i]) {
                f->value[i] = values[i];
                id_set_interface(id, f->iface[i]);
                id_set_name(id, f->name[i]);
                *mask = 1;   /* SND_CTL_EVENT_MASK_VALUE */
                return 1;
            }
        }
        return -EAGAIN;
    }
    static void fake_close(snd_ctl_ext_t *ext) {
        fake_t *f = ext->private_data;
        close(ext->poll_fd);
        free(f);
    }

    static const callbacks_t callbacks = {
        .close = fake_close, .elem_count = elem_count, .elem_list = elem_list, .find_elem = find_elem,
        .get_attribute = get_attribute, .get_integer_info = get_integer_info, .read_integer = read_integer,
        .write_integer = write_integer, .subscribe_events = subscribe_events, .read_event = read_event,
    };

    __attribute__((visibility("default"))) char __snd_ctl_avaudio_jacks_open_dlsym_control_001;

    __attribute__((visibility("default")))
    int _snd_ctl_avaudio_jacks_open(snd_ctl_t **handlep, const char *name, snd_config_t *root, snd_config_t *conf, int mode) {
        void *lib = dlopen("libasound.so.2", RTLD_NOW | RTLD_NOLOAD);
        if (!lib) return -ENOENT;
        ext_create = dlsym(lib, "snd_ctl_ext_create");
        ext_delete = dlsym(lib, "snd_ctl_ext_delete");
        id_set_interface = dlsym(lib, "snd_ctl_elem_id_set_interface");
        id_set_name = dlsym(lib, "snd_ctl_elem_id_set_name");
        id_get_interface = dlsym(lib, "snd_ctl_elem_id_get_interface");
        id_get_name = dlsym(lib, "snd_ctl_elem_id_get_name");
        config_search = dlsym(lib, "snd_config_search");
        config_get_string = dlsym(lib, "snd_config_get_string");
        if (!ext_create || !id_set_name || !config_search || !config_get_string) return -ENOSYS;
        snd_config_t *node;
        const char *path;
        if (config_search(conf, "state", &node) < 0 || config_get_string(node, &path) < 0) return -EINVAL;
        fake_t *f = calloc(1, sizeof *f);
        if (!f) return -ENOMEM;
        snprintf(f->path, sizeof f->path, "%s", path);
        f->count = load(f, f->value, 1);
        if (f->count < 0) { free(f); return -ENOENT; }
        char folder[4096];
        snprintf(folder, sizeof folder, "%s", path);
        char *slash = strrchr(folder, '/');
        if (slash) *slash = 0;
        int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (fd < 0 || inotify_add_watch(fd, folder, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) { if (fd >= 0) close(fd); free(f); return -errno; }
        f->ext.version = (1 << 16) | (0 << 8) | 1;
        f->ext.card_idx = 99;
        strcpy(f->ext.id, "AvaudioJacks");
        strcpy(f->ext.driver, "avaudio-test");
        strcpy(f->ext.name, "Jack test card");
        strcpy(f->ext.longname, "OpenAVFAudio test card with jacks");
        strcpy(f->ext.mixername, "avaudio");
        f->ext.poll_fd = fd;
        f->ext.callback = &callbacks;
        f->ext.private_data = f;
        int err = ext_create(&f->ext, name, mode);
        if (err < 0) { close(fd); free(f); return err; }
        *handlep = f->ext.handle;
        return 0;
    }
    """#

    /// The C compiler that builds it.
    static let compiler: String? = ["cc", "clang", "gcc"].lazy.compactMap(DeviceComponents.executable).first
    /// Whether the plugin can be built here (alsa-lib and a C compiler present).
    static var canBuild: Bool { DeviceComponents.alsa && compiler != nil }

    /// The compiled plugin in the tests' ALSA folder, or why there is none (the compiler failed).
    /// Built once per process.
    static let built: Result<URL, TestSkip> = build()

    struct TestSkip: Error, CustomStringConvertible { let description: String }

    private static func build() -> Result<URL, TestSkip> {
        guard let directory = ALSADeviceTests.configuration else { return .failure(TestSkip(description: "libasound.so.2 (Debian libasound2) is not installed")) }
        guard let compiler else {
            return .failure(TestSkip(description: "no C compiler (cc, clang, gcc) to build the test's ALSA control plugin"))
        }
        let sourceURL = directory.appendingPathComponent("avaudio_jacks.c")
        let library = DeviceTestALSAConfiguration.jackPluginPath(in: directory)
        do { try source.write(to: sourceURL, atomically: true, encoding: .utf8) } catch {
            return .failure(TestSkip(description: "could not write the plugin's source: \(error)"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o", library.path, sourceURL.path]
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch { return .failure(TestSkip(description: "\(compiler) did not run: \(error)")) }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(TestSkip(description: "\(compiler) could not build the test's ALSA control plugin: \(message)"))
        }
        return .success(library)
    }

    /// Replaces the state file at once (a rename: the plugin never reads half a file).
    static func writeState(_ controls: [(iface: Int, name: String, value: Int, range: ClosedRange<Int>?)], to url: URL) throws {
        let text = controls.map { "\($0.iface)\t\($0.name)\t\($0.value)" + ($0.range.map { "\t\($0.lowerBound)\t\($0.upperBound)" } ?? "") + "\n" }.joined()
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}
