// Makes the media bucket (S3_BUCKET) on the S3 server at S3_ENDPOINT if it does not exist yet:
// compose.yaml's one-shot `bucket` service, run in the service's image (its S3 client). Waits
// up to a minute for the server to answer; exits 0 once the bucket is there.
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';

const bucket = process.env.S3_BUCKET;
const client = new S3Client({
  region: process.env.S3_REGION || 'us-east-1',
  endpoint: process.env.S3_ENDPOINT,
  forcePathStyle: true,
  credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY },
});

const deadline = Date.now() + 60_000;
for (;;) {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    console.log(`bucket ${bucket} exists`);
    break;
  } catch (err) {
    const status = err?.$metadata?.httpStatusCode;
    if (status === 404) {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      console.log(`bucket ${bucket} created`);
      break;
    }
    if (Date.now() > deadline) {
      console.error(`the S3 server at ${process.env.S3_ENDPOINT} did not answer: ${err?.message ?? err}`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
