DOCUMENT = {
  "checker": "key-wrap",
  "source": "RFC 5649 section 6",
  "vectors": [
    {
      "label": "RFC 5649 6 (20 bytes)",
      "kek": "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8",
      "key_data": "c37b7e6492584340bed12207808941155068f738",
      "wrapped": "138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a"
    },
    {
      "label": "RFC 5649 6 (7 bytes)",
      "kek": "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8",
      "key_data": "466f7250617369",
      "wrapped": "afbeb0f07dfbf5419200f2ccb50bb24f"
    }
  ]
}
