# Sourced by the device scripts (run_on_device.sh, driver_memory_on_device.sh): brings the Debian
# 12 loader into / and private copies of the validation layer, Google Benchmark's runtime and
# libunwind, finds the NVIDIA ICD, and writes a manifest pointing at the carried layer.
# Needs: build (the staged build dir), debs (the .deb folder). Sets: priv, icd, man, vvl_dir.
for f in "$debs"/libvulkan1_*.deb "$debs"/libegl1_*.deb "$debs"/libglvnd0_*.deb "$debs"/libopengl0_*.deb "$debs"/libgl1_*.deb "$debs"/libglx0_*.deb "$debs"/libgles2_*.deb; do
  [ -e "$f" ] && dpkg -x "$f" /
done
ldconfig
priv=/tmp/vkleak-gpu-libs
rm -rf "$priv" && mkdir -p "$priv"
for f in "$debs"/libbenchmark1debian_*.deb "$debs"/vulkan-validationlayers_*.deb "$debs"/libunwind8_*.deb; do
  [ -e "$f" ] && dpkg -x "$f" "$priv"
done
export LD_LIBRARY_PATH="$priv/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "ICD candidates:" >&2; ls /usr/local/nvidia/share/vulkan/icd.d/ /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ >&2 2>&1
icd=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd*.json /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json 2>/dev/null | head -n1)
[ -n "$icd" ] || { echo "no NVIDIA Vulkan ICD found" >&2; exit 3; }
export VK_DRIVER_FILES=$icd
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json

# A manifest pointing at the carried layer wherever the tree landed.
man=/tmp/vkleak-gpu-manifest
mkdir -p "$man"
sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$build/lib/libVkLayer_vkleak.so\"|" \
  "$build/manifest/build/VkLayer_vkleak.json" > "$man/VkLayer_vkleak.json"
vvl_dir="$priv/usr/share/vulkan/explicit_layer.d"
