"""Sub-commands of the ``dri`` console command, one module each."""
