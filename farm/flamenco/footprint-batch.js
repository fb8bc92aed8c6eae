// Footprint Locomotion: a Flamenco 3 custom job type that bakes a batch job list (the JOBS.json that
// `blender --background --command footprint batch` reads) as one Flamenco task per job. Each task runs, on
// whichever Worker takes it,
//
//   <blender> --background --command footprint bake FILE --track=T --rig=R --output=OUT [--measure] [--overwrite]
//
// INSTALL
//   1. Copy this file into the folder named `scripts` next to the `flamenco-manager` executable (create the
//      folder if it is missing). The file's name gives the job type's name: `footprint-batch`.
//   2. Restart Flamenco Manager (3.7 and newer also read changed scripts without a restart), and refresh the
//      job types in the Blender add-on if it is open.
//   3. Every Worker's Blender (the Manager's `{blender}` variable, or the `blender` setting) needs the
//      Footprint Locomotion extension installed and enabled: the `footprint` command comes from it. The
//      scenes and the output folder must be on storage the Workers share. Flamenco 3.3 or newer (the `exec`
//      command).
//
// SUBMIT
// The job compiler runs inside the Manager and cannot read files, so the job list travels in the job's
// settings as text: `jobs` is the JOBS.json file's content, verbatim; `job_list_dir` is that file's folder as
// the Workers see it (relative "file" paths are taken from it, as batch takes them from the job list's
// folder); `output_dir` is batch's --output-dir, and it must exist (batch creates it, a bake does not). Through
// the Manager's REST API (POST /api/v3/jobs/check checks a job without creating it), e.g. in Python:
//
//   import json, urllib.request
//   job = {"name": "footprint batch", "type": "footprint-batch", "priority": 50, "submitter_platform": "linux",
//          "settings": {"jobs": open("/mnt/farm/shots/jobs.json").read(), "job_list_dir": "/mnt/farm/shots",
//                       "output_dir": "/mnt/farm/baked", "measure": False, "overwrite": False}}
//   request = urllib.request.Request("http://manager:8080/api/v3/jobs", json.dumps(job).encode(),
//                                    {"Content-Type": "application/json"})
//   print(urllib.request.urlopen(request).read().decode())
//
// or with jq and curl:
//
//   jq -n --rawfile jobs jobs.json '{name: "footprint batch", type: "footprint-batch", priority: 50,
//       submitter_platform: "linux", settings: {jobs: $jobs, job_list_dir: "/mnt/farm/shots",
//       output_dir: "/mnt/farm/baked"}}' |
//     curl -fsS -H 'Content-Type: application/json' --data-binary @- http://manager:8080/api/v3/jobs
//
// CHECKS
// At submission the whole list is checked as batch checks it (footprint_addon/batch_jobs.py): the list parses
// and is not empty; each job is an object with non-empty string "file", "track", "rig" (and "output" when
// given) and no other field; every output is a .blend inside output_dir; no two jobs write one file, and no
// job writes another's input (nor its own, unless overwrite). Where batch fails such a job alone, here the
// whole submission is refused with every problem listed: nothing has been baked yet, so fixing the list
// costs nothing. What only a Worker can see (a scene that does not exist, a missing output folder, a track or
// rig not in the scene) fails that job's task, with bake's message in the task log.
//
// Paths: job_list_dir and output_dir are absolute ("/...") or start with a Flamenco variable ("{storage}/...",
// which is also what the Manager turns a submitted path into when a two-way variable matches it). The paths in
// the job list use "/" between folders, as batch reads them on Linux and macOS. A job without "output" is
// named <input stem>.<track>.baked.blend with batch's rule; Python counts every Unicode letter and digit as
// safe in a file name, which this JavaScript engine cannot tell apart, so such a job's track name must be
// ASCII (give the job an "output" otherwise).
//
// The script is plain ECMAScript 5 (var, function expressions, no modules), which every goja engine a Flamenco
// Manager embeds runs; the Manager compiles it in strict mode.

var JOB_TYPE = {
    label: "Footprint Locomotion Batch Bake",
    description: "Bake the jobs of a footprint batch job list onto their rigs, one Blender task per job",
    settings: [
        {key: "jobs", type: "string", required: true,
         description: "The job list's JSON text, as \"footprint batch\" reads it: " +
             "[{\"file\", \"track\", \"rig\"[, \"output\"]}, ...]"},
        {key: "job_list_dir", type: "string", subtype: "dir_path", required: true,
         description: "The job list's folder as the Workers see it: relative \"file\" paths are taken from it"},
        {key: "output_dir", type: "string", subtype: "dir_path", required: true,
         description: "An existing folder for the baked .blend files, as the Workers see it: a job's \"output\" " +
             "is relative to it; a job without one writes <input stem>.<track>.baked.blend in it"},
        {key: "blender", type: "string", default: "{blender}",
         description: "The Blender the Workers run, with Footprint Locomotion enabled " +
             "({blender}: the Manager's variable)"},
        {key: "measure", type: "bool", default: false,
         description: "Also measure foot skate on each evaluated rig (bake --measure)"},
        {key: "overwrite", type: "bool", default: false,
         description: "Allow an output to replace its own input file (bake --overwrite)"},
    ],
};

var JOB_SHAPE = "{\"file\", \"track\", \"rig\"[, \"output\"]}";
var JOB_FIELDS = ["file", "output", "rig", "track"];  // batch_jobs.JOB_FIELDS, in the order its message lists them
var MAX_JOBS = 100000;  // batch_jobs.MAX_JOBS

function compileJob(job) {
    var blender = setting(job, "blender");
    var flags = bakeFlags(setting(job, "measure"), setting(job, "overwrite"));
    var bakes = checkedBakes(job);
    for (var i = 0; i < bakes.length; i++) {
        job.addTask(bakeTask(bakes[i], bakes.length, blender, flags));
    }
}

// --- settings -----------------------------------------------------------------------------------------------

// A setting's value, checked against its declaration in JOB_TYPE (reading an undeclared one is a bug here, so
// it throws). The Manager passes on only what the submitter sent, filling in no defaults, so the defaults are
// applied here, from JOB_TYPE itself; an empty string counts as not given.
function setting(job, key) {
    var declared = declaration(key);
    var value = job.settings[key];
    if (value === undefined || value === null || value === "") {
        if (declared.required) {
            throw new Error("the \"" + key + "\" setting is missing: " + declared.description);
        }
        return declared.default;
    }
    var expected = declared.type === "bool" ? "boolean" : declared.type;
    if (typeof value !== expected) {
        throw new Error("the \"" + key + "\" setting must be a " + declared.type + ", not " + shown(value));
    }
    return value;
}

function declaration(key) {
    for (var i = 0; i < JOB_TYPE.settings.length; i++) {
        if (JOB_TYPE.settings[i].key === key) {
            return JOB_TYPE.settings[i];
        }
    }
    throw new Error("footprint-batch.js reads a setting \"" + key + "\" that its JOB_TYPE does not declare");
}

// A folder as the Workers see it. A POSIX one is normalised as os.path.abspath would (batch's outputs start
// with abspath(--output-dir)); one that starts with a variable or a drive is the Worker's to resolve.
function folderSetting(job, key) {
    var value = setting(job, key);
    if (!isAbsolute(value)) {
        throw new Error("the \"" + key + "\" setting must be an absolute folder as the Workers see it, or start " +
            "with a Flamenco variable like {storage}, not " + shown(value));
    }
    return value.charAt(0) === "/" ? normpath(value) : value.replace(/[\/\\]+$/, "");
}

function jobList(job) {
    var list;
    try {
        list = JSON.parse(setting(job, "jobs"));
    } catch (err) {
        if (!(err instanceof SyntaxError)) {
            throw err;
        }
        throw new Error("the \"jobs\" setting is not JSON (" + err.message + "): fill it with the job list " +
            "file's text");
    }
    if (!Array.isArray(list)) {
        throw new Error("the \"jobs\" setting must be a JSON list of " + JOB_SHAPE + " objects, not " + shown(list));
    }
    if (list.length === 0) {
        throw new Error("the \"jobs\" setting is an empty list: a batch needs at least one " + JOB_SHAPE + " job");
    }
    if (list.length > MAX_JOBS) {
        throw new Error("the \"jobs\" setting has " + list.length + " jobs, more than the limit of " + MAX_JOBS);
    }
    return list;
}

// --- the jobs, checked as batch_jobs.load_jobs checks them --------------------------------------------------

// Every job of the list as {number, label, file, track, rig, output}; throws one Error listing every job that
// cannot run, so a submitter fixes the list in one go.
function checkedBakes(job) {
    var list = jobList(job);
    var folders = {list: folderSetting(job, "job_list_dir"), output: folderSetting(job, "output_dir")};
    var bakes = [];
    for (var i = 0; i < list.length; i++) {
        bakes.push(readBake(list[i], i + 1, folders));
    }
    refuseCollisions(bakes, setting(job, "overwrite"));
    var failed = bakes.filter(function (bake) { return bake.problem; });
    if (failed.length > 0) {
        var lines = failed.map(function (bake) {
            return "job " + bake.number + " (" + bake.label + "): " + bake.problem;
        });
        throw new Error(failed.length + " of the " + bakes.length + " jobs cannot run, so the batch is " +
            "refused:\n" + lines.join("\n"));
    }
    return bakes;
}

// One entry of the list, as batch_jobs._job reads it; bake.problem says why it cannot run.
function readBake(entry, number, folders) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
        return {number: number, label: "? ? -> ?", problem: "a job must be an object, not " + shown(entry)};
    }
    var bake = {number: number, label: labelPart(entry.file) + " " + labelPart(entry.track) + " -> " +
        labelPart(entry.rig), problem: fieldProblem(entry)};
    if (bake.problem) {
        return bake;
    }
    bake.file = join(folders.list, entry.file);
    bake.track = entry.track;
    bake.rig = entry.rig;
    var written = outputOf(entry, bake.file, folders.output);
    bake.output = written.output;
    bake.problem = written.problem;
    return bake;
}

function fieldProblem(entry) {
    var unknown = Object.keys(entry).filter(function (key) { return JOB_FIELDS.indexOf(key) < 0; }).sort();
    if (unknown.length > 0) {
        return "unknown field " + JSON.stringify(unknown[0]) + " (a job has " + JOB_FIELDS.join(", ") + ")";
    }
    var required = ["file", "track", "rig"];
    for (var i = 0; i < required.length; i++) {
        if (typeof entry[required[i]] !== "string" || entry[required[i]] === "") {
            return "\"" + required[i] + "\" must be a non-empty string, not " + shown(entry[required[i]]);
        }
    }
    if ("output" in entry && (typeof entry.output !== "string" || entry.output === "")) {
        return "\"output\" must be a non-empty string, not " + shown(entry.output);
    }
    return "";
}

// Where a job writes, by batch_jobs._output's rules: its "output" inside output_dir (neither absolute nor
// leaving it), else <input stem>.<track, unsafe characters replaced, leading dots dropped>.baked.blend there.
function outputOf(entry, input, outputDir) {
    var name;
    if ("output" in entry) {
        name = entry.output;
        if (isAbsolute(name)) {
            return refused("\"output\" " + shown(name) + " is absolute: it must be a path inside output_dir " +
                outputDir);
        }
        if (name.indexOf("\\") >= 0) {  // a folder separator to a Windows Worker, so it could leave output_dir
            return refused("\"output\" " + shown(name) + " has a backslash: use / between folders");
        }
        var inside = normpath(name);
        if (inside === "." || inside === ".." || inside.slice(0, 3) === "../") {
            return refused("\"output\" " + shown(name) + " leaves output_dir " + outputDir);
        }
    } else {
        var track = safeTrack(entry.track);
        if (track === null) {
            return refused("track " + shown(entry.track) + " has characters outside ASCII: give the job an " +
                "\"output\" (batch's default name keeps Unicode letters and digits, which this job type cannot " +
                "tell apart)");
        }
        name = stem(input) + "." + track + ".baked.blend";
    }
    var output = join(outputDir, name);
    if (output.slice(-6) !== ".blend") {
        return refused(output + ": the output must be a .blend file");
    }
    return {output: output, problem: ""};
}

function refused(problem) {
    return {output: "", problem: problem};
}

// batch_jobs._UNSAFE is Python's [^\w.+-], where \w is every Unicode letter and digit; Flamenco's JavaScript
// engine (goja) has no Unicode property classes to say the same. Within ASCII, \w is [A-Za-z0-9_]: there the
// name is made exactly; null for any other track name.
function safeTrack(track) {
    if (/[^\x00-\x7f]/.test(track)) {
        return null;
    }
    return track.replace(/[^A-Za-z0-9_.+-]/g, "_").replace(/^\.+/, "");
}

// Fail every job whose output another job also writes, or that is another job's input (or its own, unless
// overwrite), as batch_jobs._refuse_collisions does; paths compare normalised, as the Manager cannot ask the
// Workers' file system which two are one file.
function refuseCollisions(bakes, overwrite) {
    var runnable = bakes.filter(function (bake) { return !bake.problem; });
    var writers = Object.create(null);
    var readers = Object.create(null);
    runnable.forEach(function (bake) {
        (writers[normpath(bake.output)] = writers[normpath(bake.output)] || []).push(bake.number);
        (readers[normpath(bake.file)] = readers[normpath(bake.file)] || []).push(bake.number);
    });
    runnable.forEach(function (bake) {
        var key = normpath(bake.output);
        var others = writers[key].filter(function (n) { return n !== bake.number; });
        var readBy = (readers[key] || []).filter(function (n) { return n !== bake.number || !overwrite; });
        if (others.length > 0) {
            bake.problem = bake.output + ": also the output of job " + others.join(", ") + "; give each an " +
                "\"output\"";
        } else if (readBy.length === 1 && readBy[0] === bake.number) {
            bake.problem = bake.output + ": is its own input (set overwrite to replace it)";
        } else if (readBy.length > 0) {
            bake.problem = bake.output + ": is the input of job " +
                readBy.filter(function (n) { return n !== bake.number; }).join(", ");
        }
    });
}

// --- tasks --------------------------------------------------------------------------------------------------

// One task per job, on the "blender" task type (the Workers that run Blender), with one `exec` command (an
// executable and its arguments, as given) rather than `blender-render`, which is made for renders: scripts
// hand it the Manager's {blenderArgs} (typically "-b -y", and -y lets a file's scripts run) and it watches
// Blender's output for rendered frames. A bake opens its scene itself, with the scene's scripts off.
function bakeTask(bake, total, blender, flags) {
    var name = "bake " + bake.number + "/" + total + ": " + basename(bake.file) + " " + bake.track + " -> " +
        bake.rig;
    var task = author.Task(name, "blender");
    task.addCommand(author.Command("exec", {exe: blender, args: bakeArgs(bake).concat(flags)}));
    return task;
}

// The names go in as --track=NAME: a name that starts with "-" would otherwise read as an option.
function bakeArgs(bake) {
    return ["--background", "--command", "footprint", "bake", bake.file, "--track=" + bake.track,
        "--rig=" + bake.rig, "--output=" + bake.output];
}

function bakeFlags(measure, overwrite) {
    var flags = [];
    if (measure) {
        flags.push("--measure");
    }
    if (overwrite) {
        flags.push("--overwrite");
    }
    return flags;
}

// --- paths, with Python's posixpath rules -------------------------------------------------------------------

function isAbsolute(path) {
    return /^(\/|\{[^{}]+\}|[A-Za-z]:[\/\\]|\\\\)/.test(path);
}

// os.path.join(folder, name) for a name that is relative or absolute by isAbsolute.
function join(folder, name) {
    if (isAbsolute(name)) {
        return name;
    }
    return folder.slice(-1) === "/" ? folder + name : folder + "/" + name;
}

function basename(path) {
    return path.slice(path.lastIndexOf("/") + 1);
}

// os.path.splitext(os.path.basename(path))[0]: the last dot starts the extension unless only dots come
// before it (".blend" and "..blend" have none).
function stem(path) {
    var name = basename(path);
    var dot = name.lastIndexOf(".");
    if (dot <= 0 || /^\.+$/.test(name.slice(0, dot))) {
        return name;
    }
    return name.slice(0, dot);
}

// posixpath.normpath: "." and empty parts dropped, ".." taking the part before it away.
function normpath(path) {
    var slashes = path.charAt(0) === "/" ? 1 : 0;
    if (slashes && path.slice(0, 2) === "//" && path.charAt(2) !== "/") {
        slashes = 2;  // POSIX leaves the meaning of exactly two leading slashes to the system, so Python keeps them
    }
    var parts = [];
    path.split("/").forEach(function (part) {
        if (part === "" || part === ".") {
            return;
        }
        if (part !== ".." || (!slashes && parts.length === 0) || parts[parts.length - 1] === "..") {
            parts.push(part);
        } else if (parts.length > 0) {
            parts.pop();
        }
    });
    return ("//".slice(0, slashes) + parts.join("/")) || ".";
}

// --- messages -----------------------------------------------------------------------------------------------

function shown(value) {
    if (value === undefined || value === null) {
        return "nothing";
    }
    var text = JSON.stringify(value);
    return text.length > 40 ? text.slice(0, 40) + "..." : text;
}

function labelPart(value) {
    return typeof value === "string" ? value : "?";
}
