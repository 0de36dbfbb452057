"""The layer configurations compared side by side, and the isolated environment of every
process (bench/README.md, "Configurations")."""

import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
REPO = os.path.dirname(HERE)
LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
VKLEAK_LAYER = "VK_LAYER_VKLEAK_tracker"
VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation"
# Everything but the object lifetime tracker. The 1.3.239 layer reads this colon-separated list
# from VK_LAYER_DISABLES (a comma-separated one is silently ignored); the probe proves it.
LIFETIMES_ONLY_DISABLES = ":".join([
    "VK_VALIDATION_FEATURE_DISABLE_THREAD_SAFETY_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_API_PARAMETERS_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_CORE_CHECKS_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_UNIQUE_HANDLES_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_SHADERS_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_SHADER_VALIDATION_CACHE_EXT",
])
ZINK = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "zink"}


class Config:
    def __init__(self, name, env, vkleak=False, validation=False, expect=None):
        self.name = name
        self.env = env  # added to the isolated base environment ({output} = snapshot dir)
        self.vkleak = vkleak
        self.validation = validation
        self.expect = expect or {}  # what the probe must find


def make_configs(build):
    manifest = os.path.join(build, "manifest", "build")
    vkleak = {"VK_LAYER_PATH": manifest, "VK_INSTANCE_LAYERS": VKLEAK_LAYER,
              "VKLEAK_OUTPUT_DIR": "{output}"}
    probe_vkleak = {"vkleak_loaded": True, "validation_loaded": False}
    return [
        Config("none", {}, expect={"vkleak_loaded": False, "validation_loaded": False}),
        Config("vkleak-nocallsites", dict(vkleak, VKLEAK_CALLSTACK_DEPTH="0"), vkleak=True,
               expect=probe_vkleak),
        Config("vkleak", dict(vkleak), vkleak=True, expect=probe_vkleak),
        # Call sites of one frame (the app's call site, taken without unwinding): the cheap
        # setting, against the default depth's unwinding.
        Config("vkleak-depth1", dict(vkleak, VKLEAK_CALLSTACK_DEPTH="1"), vkleak=True,
               expect=probe_vkleak),
        Config("validation-lifetimes",
               {"VK_INSTANCE_LAYERS": VALIDATION_LAYER,
                "VK_LAYER_DISABLES": LIFETIMES_ONLY_DISABLES},
               validation=True,
               expect={"validation_loaded": True, "handles_wrapped": False,
                       "api_parameters": 0, "core": 0, "object_lifetimes": 1}),
        Config("validation-default", {"VK_INSTANCE_LAYERS": VALIDATION_LAYER}, validation=True,
               expect={"validation_loaded": True, "handles_wrapped": True,
                       "api_parameters": 1, "core": 1, "object_lifetimes": 1}),
    ]


def base_env(work):
    """The loader isolated from the machine: lavapipe only, Mesa's implicit device-select layer
    off, no user layers, no settings files, no inherited vkleak settings, no shader disk cache
    (a cache warmed by one configuration would speed up the next)."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith(("VK_", "VKLEAK_", "XDG_")) or k == "DISPLAY")}
    env["VK_DRIVER_FILES"] = LAVAPIPE_ICD
    env["VK_LOADER_LAYERS_DISABLE"] = "VK_LAYER_MESA_device_select"
    env["XDG_DATA_HOME"] = os.path.join(work, "xdg-empty")
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-empty")
    env["VK_LAYER_SETTINGS_PATH"] = os.path.join(work, "no-settings")
    env["MESA_SHADER_CACHE_DISABLE"] = "true"
    return env


def config_env(config, work, output):
    env = base_env(work)
    for k, v in config.env.items():
        env[k] = v.replace("{output}", output)
    return env


def env_text(config, build):
    """The configuration's environment as written in RESULTS.md."""
    common = (f"VK_DRIVER_FILES={LAVAPIPE_ICD} "
              "VK_LOADER_LAYERS_DISABLE=VK_LAYER_MESA_device_select")
    extra = " ".join(f"{k}={v.replace('{output}', '<tmp>')}" for k, v in config.env.items())
    return (common + " " + extra).strip().replace(build, "<build>")
