// Footprint Locomotion: a Flamenco 3 custom job type that bakes a batch job list (the JOBS.json that
// `blender --background --command footprint batch` reads) as one Flamenco task per job. Task K runs, on
// whichever Worker takes it,
//
//   <blender> --background --command footprint batch <job_list> --output-dir=<output_dir> --only=K --jobs=1
//       [--measure] [--overwrite]
//
// so every task checks the whole job list with batch's own rules (fields, inputs that exist, outputs inside
// output_dir, no two jobs writing one file, no job writing another's input) and bakes job K alone. A job that
// cannot run fails its own task, with batch's message in the task's log; the other tasks bake. This script
// checks only its own settings: the job list's rules live in the command line alone
// (footprint_addon/batch_jobs.py), as in farm/openjd/footprint-batch.yaml.
//
// INSTALL
//   1. Copy this file into the folder named `scripts` next to the `flamenco-manager` executable (create the
//      folder if it is missing). The file's name gives the job type's name: `footprint-batch`.
//   2. Restart Flamenco Manager (3.7 and newer also read changed scripts without a restart), and refresh the
//      job types in the Blender add-on if it is open.
//   3. Every Worker's Blender (the Manager's `{blender}` variable, or the `blender` setting) needs the
//      Footprint Locomotion extension installed and enabled: the `footprint` command comes from it. The job
//      list, its scenes and the output folder must be on storage the Workers share. Flamenco 3.3 or newer
//      (the `exec` command).
//
// SUBMIT
// Settings: `job_list` is the JOBS.json file as the Workers see it (its relative "file" paths are taken from
// its own folder, as batch takes them); `output_dir` is batch's --output-dir (created if missing; a job's
// relative "output" is taken inside it, and a folder that "output" names must exist); `job_count` is how many
// jobs the list holds, one task each: the job compiler runs inside the Manager and cannot read the file, so
// the submitter counts the list. A count that is too high makes tasks that fail ("--only K: the job list has N
// jobs"); one that is too low leaves the last jobs unbaked. `blender` (default `{blender}`), `measure` and
// `overwrite` (default false) are optional. Paths may start with a Flamenco variable
// (`{storage}/shots/jobs.json`): the Manager replaces it for each Worker.
// Through the Manager's REST API (POST /api/v3/jobs/check checks a job without creating it), e.g. in Python:
//
//   import json, urllib.request
//   job_list = "/mnt/farm/shots/jobs.json"
//   with open(job_list) as fh:
//       job_count = len(json.load(fh))
//   job = {"name": "footprint batch", "type": "footprint-batch", "priority": 50, "submitter_platform": "linux",
//          "settings": {"job_list": job_list, "output_dir": "/mnt/farm/baked", "job_count": job_count,
//                       "measure": False, "overwrite": False}}
//   request = urllib.request.Request("http://manager:8080/api/v3/jobs", json.dumps(job).encode(),
//                                    {"Content-Type": "application/json"})
//   print(urllib.request.urlopen(request).read().decode())
//
// or with jq and curl:
//
//   jq -n --argjson count "$(jq length /mnt/farm/shots/jobs.json)" '{name: "footprint batch",
//       type: "footprint-batch", priority: 50, submitter_platform: "linux",
//       settings: {job_list: "/mnt/farm/shots/jobs.json", output_dir: "/mnt/farm/baked", job_count: $count}}' |
//     curl -fsS -H 'Content-Type: application/json' --data-binary @- http://manager:8080/api/v3/jobs
//
// At submission, a missing job_list or output_dir, or a job_count that is not a whole number of at least 1 (0:
// an empty job list, nothing to bake), refuses the job with a message saying which.
//
// The script is plain ECMAScript 5 (var, function expressions, no modules), which every goja engine a Flamenco
// Manager embeds runs; the Manager compiles it in strict mode.

var JOB_TYPE = {
    label: "Footprint Locomotion Batch Bake",
    description: "Bake the jobs of a footprint batch job list onto their rigs, one Blender task per job",
    settings: [
        {key: "job_list", type: "string", subtype: "file_path", required: true,
         description: "The job list (JSON: [{\"file\", \"track\", \"rig\"[, \"output\"]}, ...]) as the Workers " +
             "see it; its relative \"file\" paths are taken from its folder"},
        {key: "output_dir", type: "string", subtype: "dir_path", required: true,
         description: "The folder for the baked .blend files, as the Workers see it (created if missing); a " +
             "job's relative \"output\" is taken inside it"},
        {key: "job_count", type: "int32", required: true, propargs: {min: 1},
         description: "How many jobs the job list holds: one task each"},
        {key: "blender", type: "string", default: "{blender}",
         description: "The Blender the Workers run, with Footprint Locomotion enabled " +
             "({blender}: the Manager's variable)"},
        {key: "measure", type: "bool", default: false,
         description: "Also measure foot skate on each evaluated rig (batch --measure)"},
        {key: "overwrite", type: "bool", default: false,
         description: "Allow an output to replace an input file (batch --overwrite)"},
    ],
};

function compileJob(job) {
    var jobList = setting(job, "job_list");
    var outputDir = setting(job, "output_dir");
    var count = jobCount(job);
    var blender = setting(job, "blender");
    var flags = batchFlags(setting(job, "measure"), setting(job, "overwrite"));
    for (var k = 1; k <= count; k++) {
        job.addTask(batchTask(k, count, blender, jobList, outputDir, flags));
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
    var expected = {bool: "boolean", int32: "number", string: "string"}[declared.type];
    if (typeof value !== expected) {
        throw new Error("the \"" + key + "\" setting must be a " + (declared.type === "bool" ? "bool" : expected) +
            ", not " + shown(value));
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

// job_count: a whole number of at least 1 (0 is an empty job list).
function jobCount(job) {
    var count = setting(job, "job_count");
    if (count === 0) {
        throw new Error("the \"job_count\" setting is 0: the job list is empty, so there is nothing to bake");
    }
    if (!isFinite(count) || Math.floor(count) !== count || count < 1) {
        throw new Error("the \"job_count\" setting must be a whole number of at least 1 (how many jobs the job " +
            "list holds), not " + shown(count));
    }
    return count;
}

// --- tasks --------------------------------------------------------------------------------------------------

// Task K, on the "blender" task type (the Workers that run Blender), with one `exec` command (an executable
// and its arguments, as given) rather than `blender-render`, which is made for renders: scripts hand it the
// Manager's {blenderArgs} (typically "-b -y", and -y lets a file's scripts run) and it watches Blender's
// output for rendered frames. A bake opens its scene itself, with the scene's scripts off.
function batchTask(k, count, blender, jobList, outputDir, flags) {
    var task = author.Task("job " + k + "/" + count, "blender");
    var args = ["--background", "--command", "footprint", "batch", jobList, "--output-dir=" + outputDir,
        "--only=" + k, "--jobs=1"];
    task.addCommand(author.Command("exec", {exe: blender, args: args.concat(flags)}));
    return task;
}

function batchFlags(measure, overwrite) {
    var flags = [];
    if (measure) {
        flags.push("--measure");
    }
    if (overwrite) {
        flags.push("--overwrite");
    }
    return flags;
}

function shown(value) {
    var text = typeof value === "number" ? String(value) : JSON.stringify(value);
    return text.length > 40 ? text.slice(0, 40) + "..." : text;
}
