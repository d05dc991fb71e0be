-- CloudWarehouse edit

-- Run with the role used for setup.
ALTER USER "SERVICE_USER" SET RSA_PUBLIC_KEY = '<derived>';
ALTER USER "SERVICE_USER" UNSET PASSWORD;
